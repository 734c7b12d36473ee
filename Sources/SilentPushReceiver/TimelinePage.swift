import SilentPushCore

/// The live timeline at the admin listener's `/`: a row per device and app over device time,
/// with pushes (dots by fate, stacked where they crowd), wakes (bars by result) and
/// background task runs (pills by outcome); a lane per background session, from each
/// transfer's hand-over to the app's relaunch for it; a time axis and a "now" line; the devices' state
/// as badges; a panel with everything about what was clicked. It reads the admin API itself
/// and refreshes when `/v1/events` says something changed. One self-contained page: no
/// script or style from elsewhere, no build step.
enum TimelinePage {
    /// The page, with the fate names from `PushFate.Kind`, the one list of them.
    static let html = page.replacingOccurrences(
        of: "__FATES__", with: PushFate.Kind.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))

    private static let page = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>SilentPush timeline</title>
        <!-- No icon to fetch: the browser's request for /favicon.ico was a 404 (401 with a token) in its console. -->
        <link rel="icon" href="data:,">
        <style>
          :root { --label: 300px; }
          * { box-sizing: border-box; }
          body { font: 13px/1.4 system-ui, sans-serif; margin: 0; color: #222; }
          header { padding: .8em 1.2em .4em; position: sticky; top: 0; background: #fff; z-index: 5; border-bottom: 1px solid #ddd; }
          h1 { font-size: 1.2em; margin: 0 1em 0 0; display: inline-block; }
          #status { color: #555; display: inline-block; }
          #live { display: inline-block; width: 8px; height: 8px; border-radius: 50%; background: #bbb; margin-right: .3em; }
          #live.on { background: #2a7; }
          .controls { margin: .4em 0; display: flex; flex-wrap: wrap; gap: .4em; align-items: center; }
          .controls label { color: #555; }
          .controls select, .controls button { font: inherit; padding: 1px 6px; }
          .controls select { max-width: 22em; text-overflow: ellipsis; }
          .legend { color: #444; font-size: 12px; }
          .legend span { display: inline-block; margin-right: .9em; white-space: nowrap; }
          .legend i { display: inline-block; width: 10px; height: 10px; border-radius: 50%; margin-right: .3em; vertical-align: -1px; }
          .legend i.bar { border-radius: 2px; width: 16px; }
          .legend i.pill { border-radius: 5px; width: 16px; }
          #axis { position: relative; height: 22px; margin-left: var(--label); border-bottom: 1px solid #bbb; overflow: hidden; cursor: grab; }
          .tick { position: absolute; bottom: 0; font-size: 11px; color: #555; white-space: nowrap; transform: translateX(-50%); padding-bottom: 2px; }
          .tick::after { content: ""; position: absolute; left: 50%; bottom: -1px; height: 5px; border-left: 1px solid #999; }
          main { position: relative; padding-bottom: 45vh; }
          #rows { position: relative; }
          .row { display: flex; border-bottom: 1px solid #eee; }
          .row.selected { background: #f3f7ff; }
          .label { width: var(--label); flex: none; padding: 3px 6px 3px 1.2em; cursor: pointer; overflow: hidden; }
          .label .name { font-family: ui-monospace, monospace; font-size: 12px; }
          .label .topic { color: #555; font-size: 12px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
          .badge { display: inline-block; font-size: 10px; line-height: 14px; padding: 0 4px; border-radius: 7px; margin: 1px 2px 0 0;
                   background: #eee; color: #333; white-space: nowrap; }
          .badge.warn { background: #fde7c2; color: #7a4a00; } .badge.bad { background: #f8d0d0; color: #8a1c1c; }
          .badge.info { background: #dbe8fb; color: #1b4a8a; }
          .lane { position: relative; flex: 1; overflow: hidden; cursor: grab; }
          .lane.dragging, #axis.dragging { cursor: grabbing; }
          .push { position: absolute; width: 9px; height: 9px; margin-left: -4.5px; border-radius: 50%; border: 1px solid rgba(0,0,0,.25); cursor: pointer; }
          .push.selected, .wake.selected, .task.selected { outline: 2px solid #000; outline-offset: 1px; }
          .more { position: absolute; font-size: 10px; color: #555; margin-left: -6px; }
          .wait { position: absolute; height: 0; border-top: 1px dashed #c98a00; pointer-events: none; }
          .wake { position: absolute; height: 14px; min-width: 3px; border-radius: 2px; font-size: 10px; line-height: 14px; color: #fff;
                  white-space: nowrap; overflow: hidden; padding: 0 2px; cursor: pointer; }
          .task { position: absolute; height: 12px; min-width: 6px; border-radius: 6px; font-size: 10px; line-height: 12px; color: #fff;
                  white-space: nowrap; overflow: hidden; padding: 0 3px; cursor: pointer; }
          #now { position: absolute; top: 0; bottom: 0; border-left: 2px solid #e33; pointer-events: none; z-index: 3; }
          #now span { position: absolute; top: 0; left: 3px; font-size: 10px; color: #e33; background: #fff; white-space: nowrap; }
          .fate-delivered { background: #2a7; } .fate-coalesced { background: #8bd; } .fate-pending { background: #fb3; }
          .fate-expired { background: #999; } .fate-dropped { background: #d55; } .fate-rejected { background: #a3a; }
          .fate-injected { background: #000; }
          .result-newData { background: #2a7; } .result-noData { background: #57a; } .result-failed { background: #d55; }
          .result-deadlineExceeded { background: #b33; } .result-killed { background: #999; } .result-running { background: #fb3; color: #222; }
          .outcome-completed { background: #2a7; } .outcome-failed, .outcome-terminated { background: #d55; } .outcome-interrupted, .outcome-killed { background: #999; }
          .outcome-expired { background: #c80; } .outcome-running { background: #fb3; color: #222; }
          .outcome-cancelled, .outcome-replaced { background: #999; }
          .result-reload { background: #39c; }
          .activity { position: absolute; height: 6px; border-radius: 3px; background: #bfe0c9; pointer-events: none; }
          .activity.state-stale { background: #f1e2b0; } .activity.state-ended { background: #ddd; }
          .activity.state-dismissed { background: none; border-top: 1px dashed #bbb; height: 0; }
          .update { position: absolute; width: 8px; height: 8px; margin-left: -4px; transform: rotate(45deg); cursor: pointer;
                    border: 1px solid rgba(0,0,0,.25); }
          .update.from-broadcast { border-color: #639; }
          .update.selected, .broadcast.selected { outline: 2px solid #639; outline-offset: 1px; }
          .update-applied { background: #2a7; } .update-waiting { background: #fb3; } .update-coalesced { background: #8bd; }
          .update-ignored { background: #d55; }
          .transfer { position: absolute; height: 8px; min-width: 4px; border-radius: 2px; cursor: pointer; border: 1px solid rgba(0,0,0,.2); }
          .transfer.state-waiting, i.state-waiting { background: repeating-linear-gradient(90deg, #fb3 0 4px, #fff 4px 7px); }
          .transfer.state-running, i.state-running { background: #39c; } .transfer.state-done, i.state-done { background: #2a7; }
          .transfer.state-failed, i.state-failed { background: #d55; } .transfer.state-cancelled, i.state-cancelled { background: #999; }
          .transfer.file-deleted::after { content: "✕"; position: absolute; right: -11px; top: -4px; font-size: 10px; color: #b33; }
          .transfer.selected { outline: 2px solid #000; outline-offset: 1px; }
          .join { position: absolute; border-left: 1px dashed #555; border-bottom: 1px dashed #555; pointer-events: none; }
          .broadcast { position: absolute; width: 0; height: 0; margin-left: -6px; border-left: 6px solid transparent;
                       border-right: 6px solid transparent; border-top: 11px solid #639; cursor: pointer; }
          #older { margin: .6em 1.2em; }
          #empty { padding: 1em 1.2em; color: #555; }
          #panel { position: fixed; left: 0; right: 0; bottom: 0; max-height: 42vh; overflow: auto; background: #fff; z-index: 6;
                   border-top: 2px solid #888; padding: .6em 1.2em 1em; box-shadow: 0 -2px 8px rgba(0,0,0,.12); }
          #panel[hidden] { display: none; }
          #panel h2 { font-size: 1.05em; margin: 0 0 .3em; }
          #panel .close { float: right; }
          #panel .why { font-size: 1.05em; margin: .2em 0 .5em; padding: .3em .5em; background: #f6f6f6; border-left: 4px solid #888; }
          #panel table { border-collapse: collapse; margin: .3em 0; }
          #panel td, #panel th { text-align: left; padding: 1px 10px 1px 0; vertical-align: top; }
          #panel th { color: #555; font-weight: normal; }
          #panel pre { background: #f6f6f6; padding: .4em; margin: .2em 0; overflow: auto; max-height: 14em; }
          #panel a { color: #1b4a8a; cursor: pointer; text-decoration: underline; }
          #panel .columns { display: flex; flex-wrap: wrap; gap: 2em; }
          .mono { font-family: ui-monospace, monospace; }
        </style>
        </head>
        <body>
        <header>
          <h1>SilentPush timeline</h1><span id="live" title="live: the page refreshes when the receiver records something"></span><span id="status">loading…</span>
          <div class="controls">
            <label>device <select id="filter-device"><option value="">all</option></select></label>
            <label>app <select id="filter-topic"><option value="">all</option></select></label>
            <label>fate <select id="filter-fate"><option value="">all</option></select></label>
            <span>time</span>
            <button id="zoom-in" title="zoom in (or ctrl + mouse wheel over the rows, or the wheel over the axis)">+</button>
            <button id="zoom-out" title="zoom out">−</button>
            <button id="pan-left" title="earlier (or drag the rows)">◀</button>
            <button id="pan-right" title="later">▶</button>
            <button id="fit" title="everything loaded, up to now, and follow what comes">fit</button>
          </div>
          <div class="legend">
            pushes:
            <span><i class="fate-delivered"></i>delivered</span><span><i class="fate-coalesced"></i>coalesced</span>
            <span><i class="fate-pending"></i>pending (dashes: until when it waits)</span><span><i class="fate-expired"></i>expired</span>
            <span><i class="fate-dropped"></i>dropped</span><span><i class="fate-rejected"></i>rejected</span>
            <span><i class="fate-injected"></i>injected (a fault rule answered)</span>
            wakes:
            <span><i class="bar result-newData"></i>newData</span><span><i class="bar result-noData"></i>noData</span>
            <span><i class="bar result-failed"></i>failed</span><span><i class="bar result-deadlineExceeded"></i>deadline exceeded</span>
            <span><i class="bar result-killed"></i>killed with the app</span>
            <span><i class="bar result-running"></i>running</span>
            task runs:
            <span><i class="pill outcome-completed"></i>completed</span><span><i class="pill outcome-expired"></i>expired</span>
            <span><i class="pill outcome-failed"></i>failed or terminated</span>
            <span><i class="pill outcome-interrupted"></i>interrupted by a stop, or killed with the app</span>
            <span><i class="bar result-reload"></i>widget or control reload</span>
            Live Activity updates:
            <span><i class="update-applied"></i>applied</span><span><i class="update-waiting"></i>waiting</span>
            <span><i class="update-coalesced"></i>coalesced</span><span><i class="update-ignored"></i>ignored</span>
            <span>▼ broadcast (click: its fan-out)</span>
            background transfers:
            <span><i class="bar state-waiting"></i>waiting</span><span><i class="bar state-running"></i>running</span>
            <span><i class="bar state-done"></i>done</span><span><i class="bar state-failed"></i>failed</span>
            <span><i class="bar state-cancelled"></i>cancelled</span><span>- - → the relaunch for its session (a urlSession task run; ✕: its file was not moved)</span>
          </div>
          <div id="axis"></div>
        </header>
        <main>
          <div id="rows"></div>
          <div id="empty" hidden>No pushes yet.</div>
          <button id="older" hidden>older pushes</button>
        </main>
        <aside id="panel" hidden></aside>
        <script>
        "use strict";
        const PAGE = 1000;
        const FATES = [__FATES__];
        const time = iso => iso == null ? null : Date.parse(iso);
        const esc = text => String(text ?? "").replace(/[&<>"']/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
        const $ = id => document.getElementById(id);

        // With --admin-token, open the page as /#token=TOKEN: the fragment never leaves the browser.
        // All of it after "token=" is the token, percent-decoded if it is (not form-decoded: a
        // base64 token's "+" stays a "+").
        const token = (() => {
          if (!location.hash.startsWith("#token=")) return null;
          const given = location.hash.substring(7);
          try { return decodeURIComponent(given); } catch { return given; }
        })();
        const headers = token ? {"authorization": "Bearer " + token} : {};
        const refused = () => token
          ? "the admin token in this page's address (#token=…) was refused: it must be silentpushd's --admin-token"
          : "this receiver has an admin token: open this page as /#token=TOKEN (its --admin-token)";
        async function api(path) {
          const response = await fetch(path, {headers});
          if (response.status === 401) throw Object.assign(new Error(refused()), {refused: true});
          if (!response.ok) throw new Error("HTTP " + response.status + " for " + path);
          return response.json();
        }
        // The device filter offers only what the admin API takes (a refused push's path may be
        // anything); a topic the API would refuse as a bundle id reads no activities or broadcasts.
        const isDeviceToken = text => /^(?:[0-9a-fA-F]{2}){32,100}$/.test(text);
        const isTopic = text => /^[!-.0-~]{1,255}$/.test(text);

        const state = {
          pushes: new Map(), wakes: new Map(), runs: new Map(), devices: new Map(), activities: new Map(), broadcasts: new Map(), transfers: new Map(),
          // Pages of pushes and wakes loaded ("older pushes" adds one): each change reads them all again.
          pushPages: 1, wakePages: 1,
          nextPushes: null, nextWakes: null, clock: {mode: "system", now: Date.now(), at: performance.now()},
          view: null, follow: true, selected: null, filters: {device: "", topic: "", fate: ""},
          topics: new Set(), tokens: new Set(),
          // Why the last read failed (a wrong token, the receiver gone): shown until one succeeds.
          error: null,
        };

        // Device time now: on the system clock it runs on between events; on the manual one it stands.
        const now = () => state.clock.mode === "system" ? state.clock.now + (performance.now() - state.clock.at) : state.clock.now;

        function query(extra) {
          const parameters = new URLSearchParams({limit: PAGE, ...extra});
          for (const [name, value] of Object.entries({device: state.filters.device, topic: state.filters.topic})) if (value) parameters.set(name, value);
          return parameters;
        }

        // At most this many pages of pushes on the page: each change reads them again.
        const MOST_PAGES = 10;

        // `count` pages of a list, newest first.
        async function pages(path, parameters, key, count) {
          const items = [];
          let next = null;
          for (let page = 0; page < count; page++) {
            if (next) parameters.set("cursor", next);
            const answer = await api(path + "?" + parameters);
            items.push(...answer[key]);
            next = answer.next;
            if (!next) break;
          }
          return {items, next};
        }

        // Everything loaded, read again whole: what left the record (a reset, a device
        // forgotten, retention) leaves the page, and no fate shown is older than the record's.
        async function refresh() {
          const pushQuery = query(state.filters.fate ? {fate: state.filters.fate} : {});
          const [pushes, wakes, runs, clock, activities, broadcasts, transfers, devices] = await Promise.all([
            pages("/v1/pushes", pushQuery, "pushes", state.pushPages), pages("/v1/wakes", query({}), "wakes", state.wakePages),
            api("/v1/task-runs?" + query({neverRan: "false"})), api("/v1/clock"),
            apps(() => api("/v1/activities?" + activityQuery(true)), {activities: []}),
            apps(() => api("/v1/broadcasts?" + activityQuery(false)), {broadcasts: []}), api("/v1/transfers?" + query({})),
            readDevices()]);
          state.clock = {mode: clock.clock, now: time(clock.now), at: performance.now()};
          // By apns-unique-id: a provider may send several pushes with one apns-id.
          state.pushes = new Map(pushes.items.map(push => [push.apnsUniqueId, push]));
          state.nextPushes = pushes.next;
          state.wakes = new Map(wakes.items.map(wake => [wake.id, wake]));
          state.nextWakes = wakes.next;
          state.runs = new Map(runs.runs.map(run => [run.id, run]));
          state.activities = new Map(activities.activities.map(activity => [activity.id, activity]));
          state.broadcasts = new Map(broadcasts.broadcasts.map(broadcast => [broadcast.requestId, broadcast]));
          state.transfers = new Map(transfers.transfers.map(transfer => [transfer.id, transfer]));
          state.devices = devices;
          // Unfiltered, the filters' choices are what is loaded now; filtered, they are kept.
          if (!state.filters.device && !state.filters.topic && !state.filters.fate) { state.tokens.clear(); state.topics.clear(); }
          state.error = null;
          scheduleRender();
          if (state.selected) showPanel(state.selected, false);
        }

        // Filtered by a topic no bundle id has (a push refused BadTopic), there are none of these.
        const apps = (read, none) => !state.filters.topic || isTopic(bundleOf(state.filters.topic)) ? read() : Promise.resolve(none);

        // Live Activities and broadcasts go by bundle id: the app filter without its push-type suffix.
        const bundleOf = topic => topic.replace(/\.push-type\.liveactivity$/, "");
        function activityQuery(withDevice) {
          const parameters = new URLSearchParams({limit: PAGE});
          if (withDevice && state.filters.device) parameters.set("device", state.filters.device);
          if (state.filters.topic) parameters.set("bundleId", bundleOf(state.filters.topic));
          return parameters;
        }

        async function readDevices() {
          const devices = await pages("/v1/devices", new URLSearchParams({limit: PAGE}), "devices", 10);
          return new Map(devices.items.map(device => [device.deviceToken, device]));
        }

        // One more page of pushes and of wakes, read with the rest by the refresh (one reader
        // at a time: a refresh under way would overwrite a page read beside it).
        function loadOlder() {
          if (!state.nextPushes || state.pushPages >= MOST_PAGES) return;
          state.pushPages++;
          state.wakePages = Math.min(state.wakePages + 1, MOST_PAGES);
          state.follow = false;
          state.view = null;
          changed();
        }

        async function reload() {
          state.pushes.clear(); state.wakes.clear(); state.runs.clear(); state.activities.clear(); state.broadcasts.clear(); state.transfers.clear();
          state.nextPushes = null; state.nextWakes = null; state.pushPages = 1; state.wakePages = 1;
          state.view = null; state.follow = true;
          await changed();
        }

        async function safely(body) {
          try {
            await body();
          } catch (error) {
            state.error = error.refused ? error.message : "cannot reach the admin API: " + error.message;
            scheduleRender();
          }
        }

        // Live: /v1/events says when the record changed (read with fetch, so the token goes along).
        let pending = false, running = false;
        async function changed() {
          if (running) { pending = true; return; }
          running = true;
          do { pending = false; await safely(refresh); } while (pending);
          running = false;
        }
        async function listen() {
          for (;;) {
            let busy = false;
            try {
              const response = await fetch("/v1/events", {headers});
              // A refused token stays refused: said once, not asked again every 2 s.
              if (response.status === 401) { state.error = refused(); scheduleRender(); return; }
              busy = response.status === 503;  // as many event streams open as the receiver serves
              if (!response.ok || !response.body) throw new Error("HTTP " + response.status);
              $("live").classList.add("on");
              const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
              let buffer = "";
              for (;;) {
                const {value, done} = await reader.read();
                if (done) break;
                buffer += value;
                let end;
                while ((end = buffer.indexOf("\n\n")) >= 0) {
                  const event = buffer.substring(0, end);
                  buffer = buffer.substring(end + 2);
                  const data = event.split("\n").find(line => line.startsWith("data: "));
                  if (!event.includes("event: change") || !data) continue;
                  const change = JSON.parse(data.substring(6));
                  state.clock = {mode: change.clock, now: time(change.now), at: performance.now()};
                  changed();
                }
              }
            } catch (error) { /* the receiver went away: try again */ }
            state.error = busy
              ? "no live updates: the receiver has as many event streams open as it serves (/v1/events answered 503); trying again every 2 s"
              : "the receiver is not answering (its admin API closed the live updates); trying again every 2 s";
            scheduleRender();
            $("live").classList.remove("on");
            await new Promise(resolve => setTimeout(resolve, 2000));
          }
        }

        // MARK: drawing

        function laneWidth() { return $("axis").clientWidth; }

        // One render per frame at most, and none while a button is held (a click must find
        // the element it went down on): a frame asked for before the press waits for it too.
        let frame = 0, held = false, owed = false;
        function scheduleRender() {
          if (held) { owed = true; return; }
          if (!frame) frame = requestAnimationFrame(() => { frame = 0; if (held) owed = true; else render(); });
        }

        // The shortest "first…last" digits that tell every device loaded apart; else the
        // ends and the digits where tokens part.
        function names(tokens) {
          const map = new Map();
          for (let digits = 6; digits <= 32; digits += 2) {
            map.clear();
            const seen = new Set();
            let unique = true;
            for (const token of tokens) {
              const name = token.length <= digits * 2 ? token : token.substring(0, digits) + "…" + token.substring(token.length - digits);
              if (seen.has(name)) unique = false;
              seen.add(name);
              map.set(token, name);
            }
            if (unique) return map;
          }
          // Tokens that differ only in the middle: their ends, and the digits where each
          // parts from the tokens next to it in order.
          const sorted = [...tokens].sort(), seen = new Set();
          const common = (a, b) => { let i = 0; while (i < a.length && a[i] === b[i]) i++; return i; };
          map.clear();
          sorted.forEach((token, i) => {
            const at = Math.max(i > 0 ? common(sorted[i - 1], token) : 0, i + 1 < sorted.length ? common(token, sorted[i + 1]) : 0);
            // Eight digits from two before the parting one, kept clear of the ends shown.
            const from = Math.min(Math.max(6, at - 2), token.length - 14);
            const middle = token.substring(from, from + 8);
            const name = token.length <= 24 ? token : token.substring(0, 6) + "…" + middle + "…" + token.substring(token.length - 6);
            seen.add(name);
            map.set(token, name);
          });
          if (seen.size === sorted.length) return map;
          for (const token of tokens) map.set(token, token);
          return map;
        }

        function badges(device) {
          if (!device) return "";
          const out = [];
          const badge = (cls, text, title) => out.push(`<span class="badge ${cls}" title="${esc(title)}">${esc(text)}</span>`);
          if (device.unregistered) badge("bad", "unregistered", "uninstalled or reinstalled: APNs answers 410 Unregistered");
          if (device.forceQuit) badge("bad", "force-quit", "the user force-quit the app: silent pushes are dropped");
          if (!device.backgroundRefresh) badge("bad", "refresh off", "Background App Refresh is off: silent pushes are dropped");
          if (device.network === "offline") badge("warn", "offline", "offline: APNs keeps the latest push per app until it is back");
          if (device.lowPowerMode) badge("warn", "Low Power", "Low Power Mode defers priority-5 wakes");
          if (device.thermalState !== "nominal") badge(device.thermalState === "fair" ? "" : "warn", "thermal " + device.thermalState, "serious defers priority-5 wakes; critical defers all");
          if (device.batteryLevel <= 20 && !device.charging) badge("warn", "battery " + device.batteryLevel + "%", "a low battery defers background work");
          if (device.charging) badge("info", "charging", "on power");
          if (device.dailyBudget != null) badge("info", "budget " + device.dailyBudget + "/day", "background launches per 24 hours");
          if (device.debuggerAttached) badge("info", "debugger", "Xcode's debugger is attached: no throttling");
          if (device.idle) badge("info", "idle", "not in use: processing tasks may run");
          return out.join("");
        }

        function visible() {
          const f = state.filters;
          const keep = r => (!f.device || r.deviceToken === f.device) && (!f.topic || r.topic === f.topic);
          return {
            pushes: [...state.pushes.values()].filter(p => keep(p) && (!f.fate || p.fate === f.fate)),
            wakes: [...state.wakes.values()].filter(keep),
            runs: [...state.runs.values()].filter(keep),
            activities: [...state.activities.values()].filter(a =>
              (!f.device || a.deviceToken === f.device) && (!f.topic || a.bundleId === bundleOf(f.topic))),
            broadcasts: [...state.broadcasts.values()].filter(b => !f.topic || b.bundleId === bundleOf(f.topic)),
            transfers: [...state.transfers.values()].filter(keep),
          };
        }

        function span(records) {
          const times = [];
          for (const p of records.pushes) times.push(time(p.receivedAt));
          for (const w of records.wakes) times.push(time(w.startedAt));
          for (const r of records.runs) times.push(time(r.startedAt));
          for (const a of records.activities) times.push(time(a.startedAt));
          for (const b of records.broadcasts) times.push(time(b.receivedAt));
          for (const t of records.transfers) times.push(time(t.handedOverAt));
          const start = times.length ? Math.min(...times) : now() - 60000;
          // Up to now, and to when the pushes that wait will be looked at again.
          // (not so far ahead that the rest is squeezed: a budget may wait until tomorrow).
          let end = now();
          const ahead = Math.max(now() - start, 20 * 60000);
          for (const p of records.pushes) {
            if (p.fate === "pending" && p.why && p.why.until) end = Math.max(end, Math.min(time(p.why.until), now() + ahead));
          }
          const width = Math.max(end - start, 10000);
          return {start: start - width * 0.03, end: end + width * 0.06};
        }

        const STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 15e3, 3e4, 6e4, 12e4, 3e5, 6e5, 9e5, 18e5, 36e5, 72e5, 108e5, 216e5, 432e5, 864e5, 1728e5, 6048e5];
        function tickText(ms, step) {
          const iso = new Date(ms).toISOString();
          if (step >= 864e5) return iso.substring(5, 10);
          if (step >= 6e4) return (step >= 216e5 ? iso.substring(5, 10) + " " : "") + iso.substring(11, 16);
          if (step >= 1e3) return iso.substring(11, 19);
          return iso.substring(11, 23);
        }

        function drawAxis(view, width) {
          const x = ms => (ms - view.start) / (view.end - view.start) * width;
          const step = STEPS.find(s => (view.end - view.start) / s <= width / 90) ?? STEPS[STEPS.length - 1];
          let html = "";
          for (let t = Math.ceil(view.start / step) * step; t <= view.end; t += step) {
            html += `<span class="tick" style="left:${x(t).toFixed(1)}px">${tickText(t, step)}</span>`;
          }
          $("axis").innerHTML = html;
          $("axis").title = "device time (UTC), " + state.clock.mode + " clock";
        }

        function render() {
          const records = visible();
          const fit = span(records);
          if (state.follow || !state.view) state.view = fit;
          const view = state.view;
          const width = laneWidth();
          if (width <= 0) return;
          const x = ms => (ms - view.start) / (view.end - view.start) * width;
          const inView = (from, to) => to >= view.start && from <= view.end;
          drawAxis(view, width);

          const rows = new Map();
          const row = (device, topic) => {
            const key = (device || "?") + " " + (topic || "?");
            if (!rows.has(key)) rows.set(key, {key, device: device || "?", topic: topic || "?", pushes: [], wakes: [], runs: []});
            return rows.get(key);
          };
          for (const p of records.pushes) row(p.deviceToken, p.topic).pushes.push(p);
          for (const w of records.wakes) row(w.deviceToken, w.topic).wakes.push(w);
          for (const r of records.runs) row(r.deviceToken, r.topic).runs.push(r);
          for (const p of state.pushes.values()) {
            if (p.topic) state.topics.add(p.topic);
            if (p.deviceToken && isDeviceToken(p.deviceToken)) state.tokens.add(p.deviceToken);
          }
          for (const a of state.activities.values()) state.tokens.add(a.deviceToken);
          const named = names([...new Set([...state.tokens, ...state.devices.keys()])].sort());
          updateFilters(named);

          let html = "";
          const sorted = [...rows.values()].sort((l, r) => (named.get(l.device) ?? l.device).localeCompare(named.get(r.device) ?? r.device) || l.topic.localeCompare(r.topic));
          for (const r of sorted) {
            // Dots stacked where they would overlap: each takes the first level free at its x.
            const levels = [];
            const MAX_LEVELS = 8;
            let dots = "", overflow = new Map();
            const ordered = r.pushes.filter(p => inView(time(p.receivedAt), time(p.receivedAt))).sort((a, b) => time(a.receivedAt) - time(b.receivedAt));
            for (const p of ordered) {
              const px = x(time(p.receivedAt));
              let level = levels.findIndex(last => px - last >= 10);
              if (level < 0) level = levels.length;
              if (level >= MAX_LEVELS) {
                const bucket = Math.round(px / 10) * 10;
                overflow.set(bucket, (overflow.get(bucket) ?? 0) + 1);
                continue;
              }
              levels[level] = px;
              const selected = state.selected?.kind === "push" && state.selected.id === p.apnsUniqueId ? " selected" : "";
              dots += `<span class="push fate-${esc(p.fate)}${selected}" data-apns-id="${esc(p.apnsId)}" data-push-id="${esc(p.apnsUniqueId)}" data-fate="${esc(p.fate)}" style="left:${px.toFixed(1)}px;top:${3 + level * 10}px"` +
                      ` title="${esc(p.apnsId)} at ${esc(p.receivedAt)}: ${esc(p.why ? p.why.text : p.fate)}"></span>`;
              if (p.fate === "pending" && p.why && p.why.until) {
                const until = Math.min(x(time(p.why.until)), width + 10);
                if (until > px) dots += `<span class="wait" style="left:${px.toFixed(1)}px;width:${(until - px).toFixed(1)}px;top:${7 + level * 10}px"></span>`;
              }
            }
            const top = 3 + Math.max(1, Math.min(levels.length, MAX_LEVELS)) * 10 + 2;
            for (const [bucket, count] of overflow) dots += `<span class="more" style="left:${bucket}px;top:${top - 12}px" title="${count} more pushes here: zoom in">+${count}</span>`;
            let bars = "";
            for (const w of r.wakes) {
              const start = time(w.startedAt), end = w.finishedAt ? time(w.finishedAt) : now();
              if (!inView(start, end)) continue;
              const reload = w.kind && w.kind !== "fetch";
              const result = reload ? "reload" : w.result ? (w.endedBy === "deadline" ? "deadlineExceeded" : w.endedBy === "killed" ? "killed" : w.result) : "running";
              const left = x(start), barWidth = Math.max(3, x(end) - left);
              const selected = state.selected?.kind === "wake" && state.selected.id === w.id ? " selected" : "";
              const said = reload ? w.kind + " reload" : w.result || "running";
              bars += `<div class="wake result-${esc(result)}${selected}" data-wake-id="${w.id}" data-kind="${esc(w.kind || "fetch")}" data-result="${esc(reload ? "reload" : w.result || "running")}" style="left:${left.toFixed(1)}px;width:${barWidth.toFixed(1)}px;top:${top}px"` +
                      ` title="wake ${w.id}: ${esc(said)}${w.reason ? " (" + esc(w.reason) + ")" : ""}">${barWidth > 26 ? (reload ? "R" : "W") + w.id : ""}</div>`;
            }
            const taskTop = top + (r.wakes.length ? 16 : 0);
            for (const t of r.runs) {
              const start = time(t.startedAt), end = t.finishedAt ? time(t.finishedAt) : now();
              if (!inView(start, end)) continue;
              const outcome = t.outcome || "running";
              const left = x(start), barWidth = Math.max(6, x(end) - left);
              const selected = state.selected?.kind === "run" && state.selected.id === t.id ? " selected" : "";
              bars += `<div class="task outcome-${esc(outcome)}${selected}" data-run-id="${t.id}" data-kind="${esc(t.kind)}" data-outcome="${esc(outcome)}" style="left:${left.toFixed(1)}px;width:${barWidth.toFixed(1)}px;top:${taskTop}px"` +
                      ` title="${esc(t.kind)} task ${esc(t.identifier)}, run ${t.id}: ${esc(t.why.text)}">${barWidth > 26 ? "T" + t.id : ""}</div>`;
            }
            const height = taskTop + (r.runs.length ? 14 : 0) + (r.wakes.length || r.runs.length ? 2 : 4);
            const name = named.get(r.device) ?? r.device;
            const selected = state.selected?.kind === "row" && state.selected.id === r.key ? " selected" : "";
            html += `<section class="row${selected}" data-device="${esc(r.device)}" data-topic="${esc(r.topic)}">` +
                    `<div class="label" data-row="${esc(r.key)}" title="${esc(r.device)} (click for the device, its wakes and what waits)">` +
                    `<div class="name">${esc(name)}</div><div class="topic">${esc(r.topic)}</div>${badges(state.devices.get(r.device))}</div>` +
                    `<div class="lane" style="height:${Math.max(height, 40)}px">${dots}${bars}</div></section>`;
          }
          html += transferRows(records, named, x, inView, width);
          html += activityRows(records, named, x, inView, width);
          $("rows").innerHTML = html;
          $("empty").hidden = state.error !== null || rows.size > 0 || records.activities.length > 0 || records.broadcasts.length > 0
            || records.transfers.length > 0;
          const nowX = x(now());
          if (nowX >= 0 && nowX <= width) {
            let line = $("now");
            if (!line) { line = document.createElement("div"); line.id = "now"; $("rows").parentElement.appendChild(line); }
            line.style.left = `calc(var(--label) + ${nowX.toFixed(1)}px)`;
            line.innerHTML = `<span>now ${esc(new Date(now()).toISOString().substring(11, 19))}</span>`;
            line.hidden = false;
          } else if ($("now")) {
            $("now").hidden = true;
          }
          const older = $("older");
          older.hidden = !state.nextPushes;
          older.disabled = state.pushPages >= MOST_PAGES;
          older.textContent = older.disabled ? `${state.pushes.size} pushes loaded: the most this page shows` : `older pushes (${state.pushes.size} loaded)`;
          $("status").dataset.now = new Date(now()).toISOString();
          // What the page shows is not the record while it cannot read it: the error says so.
          if (state.error !== null) { $("status").textContent = state.error; return; }
          $("status").textContent = `device time ${new Date(now()).toISOString().replace("T", " ").substring(0, 23)} (${state.clock.mode} clock) — ` +
            `${records.pushes.length} pushes, ${records.wakes.length} wakes, ${records.runs.length} task runs in ${rows.size} rows` +
            (records.activities.length ? `, ${records.activities.length} Live Activities, ${records.broadcasts.length} broadcasts` : "") +
            (records.transfers.length ? `, ${records.transfers.length} background transfers` : "");
        }

        // The relaunch a transfer led to: the urlSession task run of its relaunch request.
        function relaunchOf(t) {
          if (t.relaunchRequestId == null) return null;
          for (const r of state.runs.values()) if (r.kind === "urlSession" && r.requestId === t.relaunchRequestId) return r;
          return null;
        }

        // Each background session (device, app, session id) is a lane from hand-over to
        // relaunch: a bar per transfer from when the app handed it over to when it ended (or
        // now), its color its state, a waiting one dashed to when it is tried again; then,
        // joined to the transfers it was for, the relaunch: a pill for the urlSession run.
        function transferRows(records, named, x, inView, width) {
          const sessions = new Map();
          for (const t of records.transfers) {
            const key = JSON.stringify([named.get(t.deviceToken) ?? t.deviceToken, t.topic, t.session, t.deviceToken]);
            if (!sessions.has(key)) sessions.set(key, []);
            sessions.get(key).push(t);
          }
          const chosen = state.selected?.kind === "transfer" ? state.selected.id : null;
          const chosenRun = state.selected?.kind === "run" ? state.selected.id : null;
          let html = "";
          for (const [key, list] of [...sessions.entries()].sort(([l], [r]) => l.localeCompare(r))) {
            const [name, topic, session, device] = JSON.parse(key);
            list.sort((l, r) => time(l.handedOverAt) - time(r.handedOverAt) || l.id - r.id);
            const levels = [];
            const MAX_LEVELS = 6;
            let lane = "";
            const relaunches = new Map();
            for (const t of list) {
              const start = time(t.handedOverAt), end = t.finishedAt ? time(t.finishedAt) : now();
              if (t.relaunchRequestId != null) {
                const group = relaunches.get(t.relaunchRequestId) ?? {end: -Infinity, top: 4, transfers: []};
                relaunches.set(t.relaunchRequestId, group);
                group.transfers.push(t);
              }
              if (!inView(start, end)) continue;
              const left = x(start), right = Math.max(x(end), left + 4);
              let level = levels.findIndex(last => left - last >= 6);
              if (level < 0) level = Math.min(levels.length, MAX_LEVELS - 1);
              levels[level] = right;
              const top = 4 + level * 12;
              const group = relaunches.get(t.relaunchRequestId);
              if (group && end >= group.end) { group.end = end; group.top = top; }
              const selected = chosen === t.id ? " selected" : "";
              const file = t.file ? ` file-${esc(t.file)}` : "";
              lane += `<span class="transfer state-${esc(t.state)}${file}${selected}" data-transfer-id="${t.id}" data-state="${esc(t.state)}" data-file="${esc(t.file ?? "")}"` +
                      ` style="left:${Math.max(left, -10).toFixed(1)}px;width:${(Math.min(right, width + 10) - Math.max(left, -10)).toFixed(1)}px;top:${top}px"` +
                      ` title="transfer ${t.id}: ${esc(t.method)} ${esc(t.url)}: ${esc(t.why.text)}"></span>`;
              if (t.state === "waiting" && t.why.until) {
                const until = Math.min(x(time(t.why.until)), width + 10);
                if (until > right) lane += `<span class="wait" style="left:${right.toFixed(1)}px;width:${(until - right).toFixed(1)}px;top:${top + 4}px"></span>`;
              }
            }
            const relaunchTop = 4 + Math.max(1, Math.min(levels.length, MAX_LEVELS)) * 12 + 2;
            // The join: down from the end of the session's last transfer, along to its relaunch.
            const join = (from, to, group, extra) =>
              `<span class="join${extra}" style="left:${from.toFixed(1)}px;width:${Math.max(0, to - from).toFixed(1)}px;` +
              `top:${(group.top + 8).toFixed(1)}px;height:${(relaunchTop + 6 - group.top - 8).toFixed(1)}px"`;
            for (const [requestId, group] of relaunches) {
              const run = relaunchOf(group.transfers[0]);
              if (group.end === -Infinity) group.end = Math.max(...group.transfers.map(t => t.finishedAt ? time(t.finishedAt) : now()));
              const from = x(group.end);
              if (!run) {
                // Asked for, not run yet: the device has not let the app launch.
                const to = x(now());
                if (to > from && inView(group.end, now())) {
                  lane += join(from, to, group, " waiting") + ` data-relaunch-request="${requestId}"` +
                          ` title="the relaunch for session ${esc(session)} is asked for and waits for the device"></span>`;
                }
                continue;
              }
              const start = time(run.startedAt), end = run.finishedAt ? time(run.finishedAt) : now();
              if (!inView(Math.min(group.end, start), end)) continue;
              const left = x(start), barWidth = Math.max(6, x(end) - left);
              lane += join(from, left, group, "") + `></span>`;
              const outcome = run.outcome || "running";
              const selected = chosenRun === run.id ? " selected" : "";
              lane += `<div class="task relaunch outcome-${esc(outcome)}${selected}" data-run-id="${run.id}" data-kind="urlSession" data-outcome="${esc(outcome)}"` +
                      ` data-transfers="${group.transfers.map(t => t.id).join(" ")}" style="left:${left.toFixed(1)}px;width:${barWidth.toFixed(1)}px;top:${relaunchTop}px"` +
                      ` title="the relaunch for session ${esc(session)}, run ${run.id}: ${esc(run.why.text)}">${barWidth > 26 ? "T" + run.id : ""}</div>`;
            }
            const height = relaunchTop + (relaunches.size ? 14 : 0) + 2;
            html += `<section class="row transfer-row" data-device="${esc(device)}" data-topic="${esc(topic)}" data-session="${esc(session)}">` +
                    `<div class="label" title="${esc(device)}: background session ${esc(session)}"><div class="name">${esc(name)}</div>` +
                    `<div class="topic">${esc(topic)} · session ${esc(session)}</div></div>` +
                    `<div class="lane" style="height:${Math.max(height, 24)}px">${lane}</div></section>`;
          }
          return html;
        }

        // Each Live Activity is a lane: a bar while it lives (its color its state), and a
        // diamond per update decision (applied, waiting, coalesced, ignored; a broadcast's with
        // a purple edge). Each app's channel is a lane of broadcasts; a selected broadcast
        // outlines every update it made: its fan-out.
        function activityRows(records, named, x, inView, width) {
          const made = new Map();
          for (const a of records.activities) for (const u of a.updates) made.set(u.apnsId, (made.get(u.apnsId) ?? 0) + 1);
          const chosen = state.selected?.kind === "broadcast" ? state.selected.id : null;
          let html = "";
          const sorted = [...records.activities].sort((l, r) =>
            (named.get(l.deviceToken) ?? l.deviceToken).localeCompare(named.get(r.deviceToken) ?? r.deviceToken) || time(l.startedAt) - time(r.startedAt));
          for (const a of sorted) {
            const start = time(a.startedAt);
            const end = a.state === "dismissed" ? time(a.dismissalDate ?? a.endedAt ?? a.startedAt) : now();
            let lane = "";
            if (inView(start, end)) {
              const left = Math.max(x(start), -10), right = Math.min(x(end), width + 10);
              lane += `<span class="activity state-${esc(a.state)}" style="left:${left.toFixed(1)}px;width:${Math.max(2, right - left).toFixed(1)}px;top:17px"></span>`;
            }
            for (const u of a.updates) {
              const at = time(u.at);
              if (!inView(at, at)) continue;
              const broadcast = state.broadcasts.has(u.apnsId);
              const selected = chosen === u.apnsId ? " selected" : "";
              lane += `<span class="update update-${esc(u.outcome)}${broadcast ? " from-broadcast" : ""}${selected}" data-source="${esc(u.apnsId)}" data-outcome="${esc(u.outcome)}"` +
                      ` style="left:${x(at).toFixed(1)}px;top:5px" title="${esc(u.apnsId)} at ${esc(u.at)}: ${esc(u.outcome)}: ${esc(u.why)}"></span>`;
            }
            html += `<section class="row activity-row" data-activity-id="${esc(a.id)}" data-state="${esc(a.state)}">` +
                    `<div class="label" title="${esc(a.deviceToken)}: Live Activity ${esc(a.id)}"><div class="name">${esc(named.get(a.deviceToken) ?? a.deviceToken)}</div>` +
                    `<div class="topic" title="${esc(a.why)}">${esc(a.attributesType)} · ${esc(a.state)}${a.channel ? " · channel " + esc(a.channel) : ""}</div></div>` +
                    `<div class="lane" style="height:28px">${lane}</div></section>`;
          }
          const channels = new Map();
          for (const b of records.broadcasts) {
            const key = b.bundleId + " " + b.channel;
            if (!channels.has(key)) channels.set(key, []);
            channels.get(key).push(b);
          }
          for (const [key, list] of [...channels.entries()].sort()) {
            let lane = "";
            for (const b of list) {
              const at = time(b.receivedAt);
              if (!inView(at, at)) continue;
              const reached = made.get(b.requestId) ?? 0;
              const selected = chosen === b.requestId ? " selected" : "";
              lane += `<span class="broadcast${selected}" data-request-id="${esc(b.requestId)}" data-reached="${reached}" style="left:${x(at).toFixed(1)}px;top:6px"` +
                      ` title="broadcast ${esc(b.requestId)} at ${esc(b.receivedAt)}: reached ${reached} activit${reached === 1 ? "y" : "ies"} (click: its fan-out)"></span>`;
            }
            const [bundle, channel] = key.split(" ");
            html += `<section class="row broadcast-row" data-channel="${esc(channel)}"><div class="label"><div class="name">broadcasts</div>` +
                    `<div class="topic">${esc(bundle)} · channel ${esc(channel)}</div></div><div class="lane" style="height:24px">${lane}</div></section>`;
          }
          return html;
        }

        function broadcastPanel(id) {
          const b = state.broadcasts.get(id);
          if (!b) return `<h2>broadcast ${esc(id)}</h2><p>not loaded.</p>`;
          const reached = [];
          for (const a of state.activities.values()) for (const u of a.updates) if (u.apnsId === id) reached.push([a, u]);
          let payload = b.payload;
          try { payload = JSON.stringify(JSON.parse(b.payload), null, 2); } catch (error) { /* shown as sent */ }
          return `<h2>broadcast <span class="mono">${esc(b.requestId)}</span></h2>` +
            `<p class="why">reached ${reached.length} activit${reached.length === 1 ? "y" : "ies"} on channel ${esc(b.channel)}</p>` +
            table([["app", esc(b.bundleId)], ["channel", `<span class="mono">${esc(b.channel)}</span>`], ["priority", esc(b.priority)],
                   ["received", when(b.receivedAt)], ["expiration", esc(b.expiration)]]) +
            `<b>fan-out</b><ol class="fan-out">` + reached.map(([a, u]) =>
              `<li data-activity-id="${esc(a.id)}"><span class="mono">${esc(a.deviceToken.substring(0, 12))}…</span> ${esc(a.attributesType)}: ${esc(u.outcome)}: ${esc(u.why)}</li>`).join("") +
            `</ol><b>payload</b><pre>${esc(payload ?? "(not UTF-8)")}</pre>`;
        }

        function updateFilters(named) {
          const fill = (select, values, text) => {
            const current = select.value;
            const wanted = ["", ...values];
            if (select.options.length === wanted.length && [...select.options].every((o, i) => o.value === wanted[i])) return;
            select.innerHTML = `<option value="">all</option>` + values.map(v => `<option value="${esc(v)}">${esc(text(v))}</option>`).join("");
            select.value = current;
          };
          fill($("filter-device"), [...named.keys()], t => named.get(t));
          fill($("filter-topic"), [...state.topics].sort(), t => t);
          fill($("filter-fate"), FATES, f => f);
        }

        // MARK: the panel

        const table = rows => "<table>" + rows.filter(([, v]) => v != null && v !== "").map(([k, v]) => `<tr><th>${esc(k)}</th><td>${v}</td></tr>`).join("") + "</table>";
        // `id`: an apns-id (the latest push with it) or an apns-unique-id; `text`: what it shows.
        const pushLink = (id, text = id) => `<a data-open-push="${esc(id)}" class="mono">${esc(text)}</a>`;
        const wakeLink = id => `<a data-open-wake="${id}">wake ${id}</a>`;
        const when = iso => iso ? esc(iso.replace("T", " ").replace("Z", "")) : "";
        function untilText(iso) {
          if (!iso) return "";
          const left = time(iso) - now();
          const minutes = Math.floor(Math.abs(left) / 60000), seconds = Math.floor(Math.abs(left) % 60000 / 1000);
          return when(iso) + (left >= 0 ? ` (in ${minutes}m ${seconds}s)` : ` (${minutes}m ${seconds}s ago)`);
        }

        async function pushPanel(apnsId) {
          const p = await api("/v1/pushes/" + encodeURIComponent(apnsId));
          state.pushes.set(p.apnsUniqueId, {...state.pushes.get(p.apnsUniqueId), ...p});
          // Opened by an apns-id: the dot to mark is this push's.
          if (state.selected?.kind === "push") state.selected.id = p.apnsUniqueId;
          const wake = p.wakeId != null ? state.wakes.get(p.wakeId) : null;
          let payload = p.payload;
          try { payload = JSON.stringify(JSON.parse(p.payload), null, 2); } catch (error) { /* shown as sent */ }
          const headerRows = Object.entries(p.headers || {}).map(([k, v]) => [k, `<span class="mono">${esc(v)}</span>`]);
          return `<h2>push <span class="mono">${esc(p.apnsId)}</span>: <span data-fate="${esc(p.fate)}">${esc(p.fate)}</span></h2>` +
            `<p class="why" data-why-rule="${esc(p.why.rule)}">${esc(p.why.text)}</p>` +
            `<div class="columns"><div>` + table([
              ["fate", esc(p.fate)], ["rule", esc(p.why.rule)], ["until", untilText(p.why.until)],
              ["reason", esc(p.reason)], ["cause", p.cause ? esc(p.cause) : null], ["fault rule", p.faultRule != null ? esc(p.faultRule) : null],
              ["wake", p.wakeId != null ? wakeLink(p.wakeId) + (wake ? `: ${esc(wake.result || "running")}, started ${when(wake.startedAt)}` : "") : null],
              ["received", when(p.receivedAt)], ["expires", when(p.expiresAt)],
              ["device", `<span class="mono">${esc(p.deviceToken)}</span>`], ["app", esc(p.topic)],
              ["warnings", (p.warnings || []).map(esc).join("<br>")],
            ]) + `</div><div><b>headers</b>` + table(headerRows) + `<b>payload</b><pre>${esc(payload ?? "(not UTF-8)")}</pre></div></div>`;
        }

        function wakePanel(id) {
          const w = state.wakes.get(id);
          if (!w) return `<h2>wake ${id}</h2><p>not loaded: load older pushes.</p>`;
          return `<h2>wake ${w.id}: <span data-result="${esc(w.result || "running")}">${esc(w.result || "running")}</span></h2>` +
            `<p class="why">${!w.result ? "the fetch is running; its deadline is " + when(w.deadline) : w.endedBy === "handler" ? `the handler answered ${esc(w.result)}${w.reason ? " (" + esc(w.reason) + ")" : ""} after ${w.durationMs} ms` : w.endedBy === "killed" ? `${esc(w.reason)}, after ${w.durationMs} ms: the handler was stopped` : `the receiver ended it (${esc(w.reason)}) after ${w.durationMs} ms`}</p>` +
            table([
              ["delivered", pushLink(w.apnsUniqueId ?? w.apnsId, w.apnsId)], ["coalesced into it", w.coalesced.map((id, i) => pushLink(w.coalescedUniqueIds?.[i] ?? id, id)).join(", ") || "none"],
              ["started", when(w.startedAt)], ["deadline", when(w.deadline)], ["finished", when(w.finishedAt)],
              ["device", `<span class="mono">${esc(w.deviceToken)}</span>`], ["app", esc(w.topic)],
            ]) + (w.stderr ? `<h3>the handler's stderr</h3><pre class="stderr">${esc(w.stderr)}</pre>` : "");
        }

        const runLink = id => `<a data-open-run="${id}">task run ${id}</a>`;
        const transferLink = id => `<a data-open-transfer="${id}">transfer ${id}</a>`;

        function transferPanel(id) {
          const t = state.transfers.get(id);
          if (!t) return `<h2>transfer ${id}</h2><p>not loaded.</p>`;
          const run = relaunchOf(t);
          const by = t.wakeId != null ? wakeLink(t.wakeId) : t.taskRunId != null ? runLink(t.taskRunId) : "";
          const relaunch = run ? `${runLink(run.id)}: ${esc(run.outcome || "running")}, started ${when(run.startedAt)}`
            : t.relaunchRequestId != null ? "asked for: it runs when the device lets the app launch" : null;
          const file = t.file === "moved" ? "moved by the relaunch's handler" : t.file === "deleted" ? "deleted: the relaunch's handler did not move it" : null;
          return `<h2>transfer ${t.id}: <span data-state="${esc(t.state)}">${esc(t.state)}</span></h2>` +
            `<p class="why" data-why-rule="${esc(t.why.rule)}">${esc(t.why.text)}${t.why.until ? " until " + untilText(t.why.until) : ""}</p>` +
            table([
              ["session", `<span class="mono">${esc(t.session)}</span>`], ["url", `<span class="mono">${esc(t.method)} ${esc(t.url)}</span>`],
              ["handed over", when(t.handedOverAt) + (by ? " by " + by : "")],
              ["network", (t.allowsCellular ? "any" : "Wi-Fi only") + (t.discretionary ? "; discretionary: Wi-Fi and power" : "")],
              ["tries", esc(t.attempts)], ["bytes", esc(t.bytes)], ["status", t.status != null ? esc(t.status) : null],
              ["last error", t.lastError ? esc(t.lastError) : null], ["finished", when(t.finishedAt)],
              ["relaunch", relaunch], ["file", file],
              ["device", `<span class="mono">${esc(t.deviceToken)}</span>`], ["app", esc(t.topic)],
            ]);
        }

        function runPanel(id) {
          const t = state.runs.get(id);
          if (!t) return `<h2>task run ${id}</h2><p>not loaded.</p>`;
          const transfers = t.kind === "urlSession" ? [...state.transfers.values()].filter(r => r.relaunchRequestId === t.requestId) : [];
          return `<h2>${esc(t.kind)} task run ${t.id}: ${esc(t.outcome || "running")}</h2><p class="why">${esc(t.why.text)}</p>` +
            table([
              ["identifier", esc(t.identifier)], ["started", when(t.startedAt)], ["deadline", when(t.deadline)],
              ["expired", when(t.expiredAt)], ["finished", when(t.finishedAt)], ["simulated", t.simulated ? "yes (simulate-launch)" : null],
              ["progress", `${t.progress.completed} of ${t.progress.total}`],
              ["for transfers", transfers.length ? transfers.map(r => transferLink(r.id) + (r.file ? ` (file ${esc(r.file)})` : "")).join(", ") : null],
              ["device", `<span class="mono">${esc(t.deviceToken)}</span>`], ["app", esc(t.topic)],
            ]);
        }

        function rowPanel(key) {
          const [device, topic] = key.split(" ");
          const d = state.devices.get(device);
          const wakes = [...state.wakes.values()].filter(w => w.deviceToken === device && w.topic === topic).sort((a, b) => b.id - a.id);
          const waiting = [...state.pushes.values()].filter(p => p.deviceToken === device && p.topic === topic && p.fate === "pending");
          let html = `<h2>${esc(topic)} on <span class="mono">${esc(device)}</span> <button data-copy="${esc(device)}">copy token</button></h2>`;
          if (d) html += table([
            ["state", badges(d) || "as it comes: nothing holds it back"], ["battery", d.batteryLevel + "%" + (d.charging ? ", charging" : "")],
            ["thermal", esc(d.thermalState)], ["network", esc(d.network)], ["daily budget", d.dailyBudget != null ? esc(d.dailyBudget) : "the profile's"],
          ]);
          if (waiting.length) html += `<b>waiting</b><ul>` + waiting.map(p => `<li>${pushLink(p.apnsUniqueId, p.apnsId)}: ${esc(p.why.text)}</li>`).join("") + `</ul>`;
          html += `<b>wakes</b> (${wakes.length} loaded)<ol class="wakes">` + wakes.map(w =>
            `<li class="wake-item" data-wake-id="${w.id}">${wakeLink(w.id)} at ${when(w.startedAt)}: ${esc(w.result || "running")}${w.reason ? " (" + esc(w.reason) + ")" : ""}, ` +
            `delivered ${pushLink(w.apnsUniqueId ?? w.apnsId, w.apnsId)}${w.coalesced.length ? ", coalesced " + w.coalesced.map((id, i) => pushLink(w.coalescedUniqueIds?.[i] ?? id, id)).join(", ") : ""}</li>`).join("") + `</ol>`;
          return html;
        }

        async function showPanel(selected, scroll = true) {
          state.selected = selected;
          const panel = $("panel");
          try {
            const body = selected.kind === "push" ? await pushPanel(selected.id) : selected.kind === "wake" ? wakePanel(selected.id)
              : selected.kind === "run" ? runPanel(selected.id) : selected.kind === "broadcast" ? broadcastPanel(selected.id)
              : selected.kind === "transfer" ? transferPanel(selected.id) : rowPanel(selected.id);
            panel.innerHTML = `<button class="close" title="close (Esc)">×</button>` + body;
          } catch (error) {
            panel.innerHTML = `<button class="close">×</button><p>cannot read it: ${esc(error.message)}</p>`;
          }
          panel.dataset.kind = selected.kind;
          panel.hidden = false;
          if (scroll) scheduleRender();
        }

        function closePanel() { state.selected = null; $("panel").hidden = true; scheduleRender(); }

        // MARK: events

        document.addEventListener("click", event => {
          const target = event.target.closest("[data-apns-id].push, [data-wake-id].wake, [data-run-id].task, [data-request-id].broadcast, .update[data-source], [data-transfer-id].transfer, [data-row], [data-open-push], [data-open-wake], [data-open-run], [data-open-transfer], [data-copy], .close");
          if (!target) return;
          if (target.classList.contains("close")) return closePanel();
          if (target.dataset.copy) {
            navigator.clipboard?.writeText(target.dataset.copy).then(() => { target.textContent = "copied"; }, () => { target.textContent = "select the token to copy it"; });
            return;
          }
          if (target.dataset.openPush) return showPanel({kind: "push", id: target.dataset.openPush});
          if (target.dataset.requestId) return showPanel({kind: "broadcast", id: target.dataset.requestId});
          // An update: its broadcast's fan-out, or the push that made it.
          if (target.dataset.source) return showPanel(state.broadcasts.has(target.dataset.source) ? {kind: "broadcast", id: target.dataset.source} : {kind: "push", id: target.dataset.source});
          if (target.dataset.openWake) return showPanel({kind: "wake", id: Number(target.dataset.openWake)});
          if (target.dataset.openRun) return showPanel({kind: "run", id: Number(target.dataset.openRun)});
          if (target.dataset.openTransfer) return showPanel({kind: "transfer", id: Number(target.dataset.openTransfer)});
          if (target.dataset.transferId) return showPanel({kind: "transfer", id: Number(target.dataset.transferId)});
          if (target.dataset.row) return showPanel({kind: "row", id: target.dataset.row});
          if (target.dataset.wakeId) return showPanel({kind: "wake", id: Number(target.dataset.wakeId)});
          if (target.dataset.runId) return showPanel({kind: "run", id: Number(target.dataset.runId)});
          if (target.dataset.pushId) return showPanel({kind: "push", id: target.dataset.pushId});
        });
        document.addEventListener("keydown", event => { if (event.key === "Escape" && !$("panel").hidden) closePanel(); });

        function zoom(factor, anchorFraction = 0.5) {
          const view = state.view;
          if (!view) return;
          const width = view.end - view.start;
          const newWidth = Math.min(Math.max(width * factor, 50), 400 * 864e5);
          const anchor = view.start + width * anchorFraction;
          state.view = {start: anchor - newWidth * anchorFraction, end: anchor + newWidth * (1 - anchorFraction)};
          state.follow = false;
          scheduleRender();
        }
        function pan(fraction) {
          const view = state.view;
          if (!view) return;
          const shift = (view.end - view.start) * fraction;
          state.view = {start: view.start + shift, end: view.end + shift};
          state.follow = false;
          scheduleRender();
        }
        $("zoom-in").onclick = () => zoom(1 / 1.6);
        $("zoom-out").onclick = () => zoom(1.6);
        $("pan-left").onclick = () => pan(-0.25);
        $("pan-right").onclick = () => pan(0.25);
        $("fit").onclick = () => { state.follow = true; scheduleRender(); };
        $("older").onclick = () => safely(loadOlder);
        for (const name of ["device", "topic", "fate"]) {
          $("filter-" + name).onchange = event => { state.filters[name] = event.target.value; reload(); };
        }
        // The wheel scrolls the rows; with ctrl (or over the axis) it zooms; sideways it pans.
        document.addEventListener("wheel", event => {
          const lane = event.target.closest(".lane, #axis");
          if (!lane) return;
          if (Math.abs(event.deltaX) > Math.abs(event.deltaY)) { event.preventDefault(); pan(event.deltaX / laneWidth()); return; }
          if (!event.ctrlKey && !event.metaKey && lane.id !== "axis") return;
          event.preventDefault();
          const box = lane.getBoundingClientRect();
          zoom(event.deltaY > 0 ? 1.25 : 0.8, Math.min(Math.max((event.clientX - box.left) / box.width, 0), 1));
        }, {passive: false});
        let drag = null;
        document.addEventListener("mousedown", event => {
          held = true;
          const lane = event.target.closest(".lane, #axis");
          if (!lane || event.target.closest(".push, .wake, .task, .update, .broadcast, .transfer") || !state.view) return;
          drag = {x: event.clientX, view: {...state.view}, lane, moved: false};
          lane.classList.add("dragging");
        });
        document.addEventListener("mousemove", event => {
          if (!drag) return;
          const dx = event.clientX - drag.x;
          if (Math.abs(dx) > 2) drag.moved = true;
          const shift = -dx / laneWidth() * (drag.view.end - drag.view.start);
          state.view = {start: drag.view.start + shift, end: drag.view.end + shift};
          state.follow = false;
          render();
        });
        document.addEventListener("mouseup", () => {
          if (drag) drag.lane.classList.remove("dragging");
          drag = null;
          // After the click: it is dispatched once this handler returns.
          setTimeout(() => { held = false; if (owed) { owed = false; scheduleRender(); } }, 0);
        });
        window.addEventListener("resize", scheduleRender);
        // The now line moves on its own on the system clock; nothing is fetched for it.
        setInterval(() => { if (state.clock.mode === "system") scheduleRender(); }, 1000);

        reload().then(listen);
        </script>
        </body>
        </html>
        """#
}
