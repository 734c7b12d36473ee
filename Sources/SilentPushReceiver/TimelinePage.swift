/// The live timeline at the admin listener's `/`: per device and app, pushes, wakes and
/// background task runs over device time — delivered, coalesced, pending, expired, dropped,
/// rejected, each wake's result and each run's kind and outcome — refreshed every second from
/// the admin API itself (`/v1/pushes`, `/v1/wakes`, `/v1/task-runs`, `/v1/clock`). One
/// self-contained page: no script or style from elsewhere.
enum TimelinePage {
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <title>SilentPush timeline</title>
        <style>
          body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
          h1 { font-size: 1.3em; margin: 0 0 .2em; }
          #status { color: #666; margin-bottom: 1em; }
          .app { border: 1px solid #ddd; border-radius: 6px; padding: .6em .8em; margin-bottom: 1em; }
          .app h2 { font-size: 1em; margin: 0 0 .4em; font-family: ui-monospace, monospace; }
          .lane { position: relative; height: 46px; background: #fafafa; border-bottom: 1px solid #eee; margin-bottom: .4em; }
          .push { position: absolute; top: 4px; width: 8px; height: 8px; margin-left: -4px; border-radius: 50%; }
          .wake { position: absolute; top: 20px; height: 20px; min-width: 26px; border-radius: 3px; font-size: 11px;
                  color: #fff; white-space: nowrap; overflow: visible; padding: 0 3px; box-sizing: border-box; }
          .fate-delivered { background: #2a7; } .fate-coalesced { background: #8bd; } .fate-pending { background: #fb3; }
          .fate-expired { background: #999; } .fate-dropped { background: #d55; } .fate-rejected { background: #a3a; }
          .fate-injected { background: #000; }
          .result-newData { background: #2a7; } .result-noData { background: #57a; } .result-failed { background: #d55; }
          .result-running { background: #fb3; color: #222; }
          .task { position: absolute; top: 24px; height: 18px; min-width: 30px; border-radius: 9px; font-size: 11px; color: #fff;
                  white-space: nowrap; padding: 0 4px; box-sizing: border-box; border: 2px solid #fff; }
          .outcome-completed { background: #2a7; } .outcome-failed, .outcome-terminated { background: #d55; }
          .outcome-expired { background: #c80; } .outcome-running { background: #fb3; color: #222; }
          ol.wakes { margin: .3em 0 0; padding-left: 1.4em; font-size: 12px; }
          p.waiting { margin: .2em 0 0; font-size: 12px; color: #8a5a00; }
          .legend span { display: inline-block; margin-right: 1em; }
          .legend i { display: inline-block; width: 10px; height: 10px; border-radius: 50%; margin-right: .3em; vertical-align: -1px; }
        </style>
        </head>
        <body>
        <h1>SilentPush timeline</h1>
        <div id="status">loading…</div>
        <div class="legend">
          <span><i class="fate-delivered"></i>delivered</span><span><i class="fate-coalesced"></i>coalesced</span>
          <span><i class="fate-pending"></i>pending</span><span><i class="fate-expired"></i>expired</span>
          <span><i class="fate-dropped"></i>dropped</span><span><i class="fate-rejected"></i>rejected</span>
          <span><i class="fate-injected"></i>injected (a fault rule answered)</span>
        </div>
        <div id="apps"></div>
        <script>
        "use strict";
        const time = iso => Date.parse(iso);
        const clockText = ms => new Date(ms).toISOString().substring(11, 23);
        const esc = text => String(text).replace(/[&<>"]/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c]));

        // With --admin-token, open the page as /#token=TOKEN: the fragment never leaves the browser.
        const token = new URLSearchParams(location.hash.substring(1)).get("token");
        const headers = token ? {"authorization": "Bearer " + token} : {};

        async function refresh() {
          try {
            const [pushes, wakes, runs, clock] = await Promise.all(
              ["/v1/pushes?limit=1000", "/v1/wakes?limit=1000", "/v1/task-runs?limit=1000", "/v1/clock"].map(url => fetch(url, {headers}).then(r => {
                if (!r.ok) throw new Error(r.status === 401 ? "401: open this page as /#token=TOKEN (the --admin-token)" : "HTTP " + r.status);
                return r.json();
              })));
            render(pushes.pushes, wakes.wakes, runs.runs, clock);
          } catch (error) {
            document.getElementById("status").textContent = "cannot reach the admin API: " + error;
          }
        }

        function render(pushes, wakes, runs, clock) {
          const now = time(clock.now);
          const apps = new Map();
          const app = (device, topic) => {
            const key = (device || "?") + " " + (topic || "?");
            if (!apps.has(key)) apps.set(key, {device: device || "?", topic: topic || "?", pushes: [], wakes: [], runs: []});
            return apps.get(key);
          };
          for (const push of pushes) app(push.deviceToken, push.topic).pushes.push(push);
          for (const wake of wakes) app(wake.deviceToken, wake.topic).wakes.push(wake);
          for (const run of runs) app(run.deviceToken, run.topic).runs.push(run);
          const times = pushes.map(p => time(p.receivedAt)).concat(wakes.map(w => time(w.startedAt)), runs.map(t => time(t.startedAt)));
          const start = times.length ? Math.min(...times) : now;
          const end = Math.max(now, ...times, start + 1000);
          const x = ms => (100 * (ms - start) / (end - start)).toFixed(3) + "%";
          document.getElementById("status").textContent =
            `device clock (${clock.clock}) ${clock.now} — ${pushes.length} pushes, ${wakes.length} wakes, ${runs.length} task runs, ` +
            `${clockText(start)} to ${clockText(end)}`;
          let html = "";
          for (const a of [...apps.values()].sort((l, r) => (l.device + l.topic).localeCompare(r.device + r.topic))) {
            html += `<section class="app" data-device="${esc(a.device)}" data-topic="${esc(a.topic)}">`;
            html += `<h2>${esc(a.device.substring(0, 16))}… ${esc(a.topic)}</h2><div class="lane">`;
            for (const p of a.pushes) {
              const note = p.why ? p.why.text : p.fate + (p.wakeId != null ? " into wake " + p.wakeId : "") + (p.reason ? ": " + p.reason : "");
              html += `<span class="push fate-${esc(p.fate)}" data-apns-id="${esc(p.apnsId)}" style="left:${x(time(p.receivedAt))}"` +
                      ` title="${esc(p.apnsId)} at ${clockText(time(p.receivedAt))}, ${esc(note)}"></span>`;
            }
            for (const w of a.wakes) {
              const result = w.result || "running";
              const finished = w.finishedAt ? time(w.finishedAt) : now;
              html += `<div class="wake result-${esc(result)}" data-wake-id="${w.id}" data-result="${esc(result)}"` +
                      ` style="left:${x(time(w.startedAt))};width:calc(${x(finished)} - ${x(time(w.startedAt))})"` +
                      ` title="wake ${w.id}: ${esc(result)}${w.reason ? " (" + esc(w.reason) + ")" : ""}">W${w.id}</div>`;
            }
            for (const t of a.runs) {
              const outcome = t.outcome || "running";
              const finished = t.finishedAt ? time(t.finishedAt) : now;
              html += `<div class="task outcome-${esc(outcome)}" data-run-id="${t.id}" data-kind="${esc(t.kind)}" data-outcome="${esc(outcome)}"` +
                      ` style="left:${x(time(t.startedAt))};width:calc(${x(finished)} - ${x(time(t.startedAt))})"` +
                      ` title="${esc(t.kind)} task ${esc(t.identifier)}, run ${t.id}: ${esc(t.why.text)}">T${t.id}</div>`;
            }
            html += `</div><ol class="wakes">`;
            for (const w of a.wakes.slice().sort((l, r) => l.id - r.id)) {
              html += `<li class="wake-item" data-wake-id="${w.id}">wake ${w.id} at ${clockText(time(w.startedAt))}: ` +
                      `${esc(w.result || "running")}${w.reason ? " (" + esc(w.reason) + ")" : ""}, delivered ${esc(w.apnsId)}` +
                      `${w.coalesced.length ? ", coalesced " + w.coalesced.map(esc).join(", ") : ""}</li>`;
            }
            for (const t of a.runs.slice().sort((l, r) => l.id - r.id)) {
              html += `<li class="task-item" data-run-id="${t.id}">${esc(t.kind)} task ${esc(t.identifier)}, run ${t.id} at ` +
                      `${clockText(time(t.startedAt))}${t.simulated ? " (simulated)" : ""}: ${esc(t.outcome || "running")} — ${esc(t.why.text)}</li>`;
            }
            html += `</ol>`;
            // Why what waits, waits: the rule the device applied, with its numbers.
            for (const p of a.pushes.filter(p => p.fate === "pending" && p.why)) {
              html += `<p class="waiting" data-apns-id="${esc(p.apnsId)}" data-why-rule="${esc(p.why.rule)}">` +
                      `${esc(p.apnsId)}: ${esc(p.why.text)}</p>`;
            }
            html += `</section>`;
          }
          document.getElementById("apps").innerHTML = html || "<p>No pushes yet.</p>";
        }

        refresh();
        setInterval(refresh, 1000);
        </script>
        </body>
        </html>
        """#
}
