#!/usr/bin/env python3
"""How long a page takes to load, lay out and paint in headless Chromium,
browser start-up excluded: from navigation start to the frame after the load
event ("painted"), and to a PNG of the first screen being back ("pixels",
which also forces rasterizing and adds the PNG encoding).

    python3 Tools/render_time.py Reports/gpix/report.html [--runs 5]

Needs Chromium (apt-get install -y chromium) and `websocket-client` (pip).
Prints each run and the median, in milliseconds.
"""
import json, os, subprocess, sys, tempfile, time, urllib.request
import websocket

def main():
    path = os.path.abspath(sys.argv[1])
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 5
    port = 9333
    profile = tempfile.mkdtemp()
    browser = subprocess.Popen(["chromium", "--headless", "--no-sandbox", "--disable-gpu", f"--remote-debugging-port={port}",
                                f"--user-data-dir={profile}", "--window-size=1100,1400", "about:blank"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                pages = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json"))
                page = next(p for p in pages if p["type"] == "page")
                break
            except Exception:
                time.sleep(0.1)
        ws = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=60)
        ids = iter(range(1, 10**6))
        def call(method, **params):
            i = next(ids)
            ws.send(json.dumps({"id": i, "method": method, "params": params}))
            while True:
                msg = json.loads(ws.recv())
                if msg.get("id") == i:
                    return msg.get("result", {})
        call("Page.enable")
        times, pixels = [], []
        for _ in range(runs):
            call("Page.navigate", url="about:blank")
            time.sleep(0.3)
            start = time.monotonic()
            call("Page.navigate", url="file://" + path)
            while True:
                msg = json.loads(ws.recv())
                if msg.get("method") == "Page.loadEventFired":
                    break
            result = call("Runtime.evaluate", awaitPromise=True, returnByValue=True, expression="""
                new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() =>
                  done(performance.now()))))""")
            times.append(result["result"]["value"])
            call("Page.captureScreenshot", format="png")
            pixels.append((time.monotonic() - start) * 1000)
        for t, p in zip(times, pixels):
            print(f"painted {t:.0f} ms, pixels {p:.0f} ms")
        print(f"median: painted {sorted(times)[len(times) // 2]:.0f} ms, pixels {sorted(pixels)[len(pixels) // 2]:.0f} ms")
    finally:
        browser.kill()

main()
