#!/usr/bin/env python3
"""How long a page takes to load, lay out and paint in headless Chromium,
browser start-up excluded: from navigation start to the frame after the load
event ("painted"), and to a PNG of the first screen being back ("pixels",
which also forces rasterizing and adds the PNG encoding).

    python3 Tools/render_time.py Reports/gpix/report.html [--runs 5] [--interact]

With --interact (a report with an interactive chart), each run also waits for
the chart to be live ("live": from navigation start to its first drawing; big
charts show their static SVG first and turn live once decoded), then wheels
in 8 steps and pans 8 steps over the price chart as a person would (DevTools
input events), and reports for each kind of step the time the chart's redraw
took in script ("draw"), from the input event to the end of the redraw (the
event's timestamp to the end of the animation frame that drew it), and from
sending the input to the page's next frame as measured from outside (which
includes the measurement's own round trips, also shown for an input that
changes nothing): median and worst over all steps and runs.

Needs Chromium (apt-get install -y chromium) and `websocket-client` (pip).
Prints each run and the median, in milliseconds.
"""
import json, os, subprocess, sys, tempfile, time, urllib.request
import websocket

FRAME = "new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now()))))"

def main():
    path = os.path.abspath(sys.argv[1])
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 5
    interact = "--interact" in sys.argv
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
        ws = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=120)
        ids = iter(range(1, 10**6))
        def call(method, **params):
            i = next(ids)
            ws.send(json.dumps({"id": i, "method": method, "params": params}))
            while True:
                msg = json.loads(ws.recv())
                if msg.get("id") == i:
                    return msg.get("result", {})
        def evaluate(expression):
            return call("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)["result"]["value"]
        call("Page.enable")
        times, pixels, live, steps = [], [], [], {"zoom": [], "pan": [], "none": []}
        for _ in range(runs):
            call("Page.navigate", url="about:blank")
            time.sleep(0.3)
            start = time.monotonic()
            call("Page.navigate", url="file://" + path)
            while True:
                msg = json.loads(ws.recv())
                if msg.get("method") == "Page.loadEventFired":
                    break
            times.append(evaluate(FRAME))
            call("Page.captureScreenshot", format="png")
            pixels.append((time.monotonic() - start) * 1000)
            if not interact:
                continue
            live.append(evaluate("backtestCharts[0].ready.then(() => backtestCharts[0].stats.firstDrawn)"))
            box = evaluate("""(() => { const b = document.querySelector('[data-panel] .ic-box');
                b.scrollIntoView({block: 'center'}); const r = b.getBoundingClientRect(); return [r.left, r.top, r.width, r.height] })()""")
            x, y = box[0] + box[2] / 2, box[1] + box[3] / 2
            evaluate(FRAME)
            def step(kind, dispatch):
                sent = evaluate("performance.now()")
                dispatch()
                shown = evaluate(FRAME)
                draw = evaluate("(s => [s.lastDraw, s.lastLatency])(backtestCharts[0].stats)")
                steps[kind].append((draw[0], shown - sent, draw[1]))
            for _ in range(8):
                # The same measurement around an input that changes nothing: its own cost.
                step("none", lambda: call("Input.dispatchMouseEvent", type="mouseMoved", x=2, y=2))
            for _ in range(8):
                step("zoom", lambda: call("Input.dispatchMouseEvent", type="mouseWheel", x=x, y=y, deltaX=0, deltaY=-250))
            call("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y)
            call("Input.dispatchMouseEvent", type="mousePressed", x=x, y=y, button="left", buttons=1, clickCount=1)
            for k in range(8):
                step("pan", lambda: call("Input.dispatchMouseEvent", type="mouseMoved", x=x - 30 * (k + 1), y=y, button="left", buttons=1))
            call("Input.dispatchMouseEvent", type="mouseReleased", x=x - 240, y=y, button="left", buttons=0, clickCount=1)
        median = lambda v: sorted(v)[len(v) // 2]
        for k, (t, p) in enumerate(zip(times, pixels)):
            print(f"painted {t:.0f} ms, pixels {p:.0f} ms" + (f", live {live[k]:.0f} ms" if interact else ""))
        print(f"median: painted {median(times):.0f} ms, pixels {median(pixels):.0f} ms" + (f", live {median(live):.0f} ms" if interact else ""))
        for kind in ["zoom", "pan"]:
            values = steps[kind]
            if values:
                draws, latencies, frames = [v[0] for v in values], [v[2] for v in values], [v[1] for v in values]
                print(f"{kind} steps ({len(values)}): draw median {median(draws):.1f} ms, worst {max(draws):.1f} ms; "
                      f"input event to redrawn median {median(latencies):.1f} ms, worst {max(latencies):.1f} ms; "
                      f"measured input to next frame median {median(frames):.1f} ms, worst {max(frames):.1f} ms")
        if steps["none"]:
            frames = [v[1] for v in steps["none"]]
            print(f"the measurement itself (an input that changes nothing): input to next frame median {median(frames):.1f} ms, worst {max(frames):.1f} ms")
    finally:
        browser.kill()

main()
