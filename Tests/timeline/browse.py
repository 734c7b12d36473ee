#!/usr/bin/env python3
"""Drives headless Chromium over the DevTools protocol (on a pipe: standard library only).

    browse.py URL [--size WxH] STEP...

Opens URL and runs the steps in the order given:
    --expect SELECTOR    wait (up to 20 s) until something matches
    --click SELECTOR     wait for it, then click its middle with the mouse, as a user does
    --read SELECTOR      record the first match's text and HTML (null if none)
    --evaluate JS        run JS in the page (awaiting a promise) and record its value
    --wait SECONDS       sleep
    --screenshot FILE    save the window as PNG
Prints one JSON object: "reads" (selector, text, html, in order), "evaluated", and "error"
when a step failed (with what the timeline's #panel and #status held then). Exit 0 when every step was done, 1 otherwise.
"""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


class Browser:
    def __init__(self, width, height):
        self.profile = tempfile.mkdtemp(prefix="silentpush-browse-")
        to_chrome_read, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_write = os.pipe()

        def descriptors():
            # Chromium reads commands on 3 and writes answers on 4.
            read, write = os.dup(to_chrome_read), os.dup(from_chrome_write)
            os.dup2(read, 3)
            os.dup2(write, 4)

        self.process = subprocess.Popen(
            ["chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--user-data-dir=" + self.profile, f"--window-size={width},{height}", "--hide-scrollbars",
             "--no-first-run", "about:blank"],
            preexec_fn=descriptors, close_fds=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_read)
        os.close(from_chrome_write)
        self.buffer = b""
        self.next_id = 0
        self.session = None
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.call("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def call(self, method, params=None, timeout=30):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if self.session:
            message["sessionId"] = self.session
        os.write(self.to_chrome, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" not in self.buffer:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{method}: no answer in {timeout} s")
                chunk = os.read(self.from_chrome, 1 << 16)
                if not chunk:
                    raise EOFError("chromium exited")
                self.buffer += chunk
            raw, self.buffer = self.buffer.split(b"\0", 1)
            answer = json.loads(raw)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, selector, timeout=20):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.evaluate(f"document.querySelector({json.dumps(selector)}) !== null"):
                return
            time.sleep(0.1)
        raise TimeoutError(f"nothing matches {selector} after {timeout} s")

    def click(self, selector):
        self.wait_for(selector)
        box = self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)}); e.scrollIntoView({{block: 'center'}});"
            " const r = e.getBoundingClientRect(); return {x: r.left + r.width / 2, y: r.top + r.height / 2}; })()")
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", {"type": kind, "x": box["x"], "y": box["y"], "button": "left", "clickCount": 1})

    def read(self, selector):
        return self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            " return e ? {text: e.innerText, html: e.outerHTML} : null; })()")

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as file:
            file.write(base64.b64decode(data))

    def close(self):
        try:
            self.call("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


def main(arguments):
    url, steps, size = arguments[0], [], (1400, 900)
    rest = arguments[1:]
    while rest:
        flag, value, rest = rest[0], rest[1], rest[2:]
        if flag == "--size":
            size = tuple(int(n) for n in value.split("x"))
        else:
            steps.append((flag[2:], value))
    output = {"reads": []}
    browser = Browser(*size)
    try:
        browser.call("Page.enable")
        browser.call("Page.navigate", {"url": url})
        for kind, value in steps:
            if kind == "click":
                browser.click(value)
            elif kind == "expect":
                browser.wait_for(value)
            elif kind == "read":
                output["reads"].append({"selector": value, **(browser.read(value) or {"text": None, "html": None})})
            elif kind == "screenshot":
                browser.screenshot(value)
            elif kind == "wait":
                time.sleep(float(value))
            elif kind == "evaluate":
                output.setdefault("evaluated", []).append(browser.evaluate(value))
            else:
                raise ValueError(f"unknown step --{kind}")
        status = 0
    except Exception as error:
        output["error"] = f"{type(error).__name__}: {error}"
        try:
            output["error"] += " | panel: " + json.dumps(browser.read("#panel")) + " | status: " + json.dumps(browser.read("#status"))
        except Exception:
            pass
        status = 1
    finally:
        browser.close()
    print(json.dumps(output))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
