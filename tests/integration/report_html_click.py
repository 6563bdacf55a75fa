#!/usr/bin/env python3
"""Drive headless Chromium over the DevTools protocol (--remote-debugging-pipe)
and click in a corral report page like a person: real mouse events at an
element's position, then read what the page shows.

  report_html_click.py FILE.html SCRIPT.json

SCRIPT is a list of steps; each prints one line of output:
  ["click", CSS]          press and release the mouse on the element's centre
  ["type", CSS, TEXT]     click the element, select all, type TEXT
  ["attr", NAME]          print document.body.dataset[NAME] once the page settled
  ["eval", NAME, JS]      print NAME=<the JSON of JS's value>
Exits 0 when every step ran, 2 when the page or the browser failed."""
import json, os, subprocess, sys, tempfile, time

html, script = sys.argv[1], json.load(open(sys.argv[2]))
cmd_r, cmd_w = os.pipe()   # we write commands, chromium reads fd 3
res_r, res_w = os.pipe()   # chromium writes fd 4, we read
prof = tempfile.mkdtemp(prefix="chrome.")


def child():
    os.dup2(cmd_r, 3)
    os.dup2(res_w, 4)


br = subprocess.Popen(
    ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
     "--no-first-run", "--disable-background-networking", "--disable-component-update",
     "--disable-sync", "--user-data-dir=" + prof, "--remote-debugging-pipe",
     "--window-size=1280,900", "file://" + html],
    preexec_fn=child, pass_fds=(3, 4), stdin=subprocess.DEVNULL,
    stdout=subprocess.DEVNULL, stderr=open(os.path.join(prof, "log"), "w"))
os.close(cmd_r)
os.close(res_w)
buf = b""
seq = 0
deadline = time.time() + 90


def die(msg):
    print("error: " + msg)
    br.kill()
    sys.exit(2)


def send(method, params=None, session=None):
    global seq, buf
    seq += 1
    msg = {"id": seq, "method": method, "params": params or {}}
    if session:
        msg["sessionId"] = session
    os.write(cmd_w, json.dumps(msg).encode() + b"\0")
    while True:
        while b"\0" not in buf:
            if time.time() > deadline:
                die("timed out waiting for " + method)
            chunk = os.read(res_r, 65536)
            if not chunk:
                die("chromium closed the pipe")
            buf += chunk
        line, buf = buf.split(b"\0", 1)
        r = json.loads(line)
        if r.get("id") == seq:
            if "error" in r:
                die(method + ": " + json.dumps(r["error"]))
            return r.get("result", {})


def page_session():
    while time.time() < deadline:
        for t in send("Target.getTargets")["targetInfos"]:
            if t["type"] == "page" and t["url"].startswith("file://"):
                return send("Target.attachToTarget", {"targetId": t["targetId"], "flatten": True})["sessionId"]
        time.sleep(0.1)
    die("no page")


s = page_session()


def js(expr):
    r = send("Runtime.evaluate", {"expression": expr, "returnByValue": True}, s)
    if "exceptionDetails" in r:
        die("script: " + json.dumps(r["exceptionDetails"])[:300])
    return r["result"].get("value")


while js("document.body && document.body.dataset.ready") != "1":
    if js("document.body && document.body.dataset.error"):
        die("page error: " + js("document.body.dataset.error"))
    if time.time() > deadline:
        die("the page did not load")
    time.sleep(0.1)


def click(css):
    js("document.querySelector(%s).scrollIntoView({block: 'center'})" % json.dumps(css))
    r = js("(() => { const e = document.querySelector(%s); if (!e) return null;"
           " const b = e.getBoundingClientRect(); return [b.x + b.width / 2, b.y + b.height / 2]; })()" % json.dumps(css))
    if not r:
        die("no element " + css)
    for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
        send("Input.dispatchMouseEvent", {"type": kind, "x": r[0], "y": r[1], "button": "left",
                                          "clickCount": 1 if kind != "mouseMoved" else 0}, s)


for step in script:
    if step[0] == "click":
        click(step[1])
        print("clicked " + step[1])
    elif step[0] == "type":
        click(step[1])
        send("Input.dispatchKeyEvent", {"type": "keyDown", "key": "a", "code": "KeyA", "modifiers": 2,
                                        "windowsVirtualKeyCode": 65, "commands": ["selectAll"]}, s)
        send("Input.dispatchKeyEvent", {"type": "keyUp", "key": "a", "code": "KeyA", "modifiers": 2}, s)
        send("Input.insertText", {"text": step[2]}, s)
        time.sleep(0.5)  # the text filter waits 120 ms for more typing
        print("typed " + step[2])
    elif step[0] == "eval":
        time.sleep(0.1)
        print("%s=%s" % (step[1], json.dumps(js(step[2]))))
    elif step[0] == "attr":
        time.sleep(0.1)
        print("%s=%s" % (step[1], js("document.body.dataset[%s]" % json.dumps(step[1]))))
send("Browser.close")
br.wait(timeout=30)
