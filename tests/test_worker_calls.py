"""The worker's call queue (web/js/worker/calls.js), run in Node on the module itself: every call
is answered, in order, even when answering one of them throws."""
import json
import subprocess

from conftest import ROOT


def test_a_call_whose_answer_throws_is_answered_with_an_error_and_the_queue_goes_on():
    """An endpoint whose reply cannot be read (here: `null`, so reading its error throws) used to
    reject the queue's promise chain: that caller and every later one waited for ever (the page's
    idle() never resolved). Now that call gets a WorkerError and the next calls are answered."""
    url = (ROOT / "web" / "js" / "worker" / "calls.js").as_uri()
    js = f"""
      const posted = [];
      globalThis.self = {{ postMessage: (m) => posted.push(m) }};
      import({json.dumps(url)}).then(async (m) => {{
        const dispatch = (fn, args) => (fn === "broken" ? "null" : JSON.stringify({{ ok: true, result: fn }}));
        const serve = m.serveCalls({{ py: {{ pyodide: null }}, info: {{ models: {{}} }}, dispatch, loadOnNeed: null }});
        serve({{ data: {{ id: 1, fn: "first", args: {{}} }} }});
        serve({{ data: {{ id: 2, fn: "broken", args: {{}} }} }});
        serve({{ data: {{ id: 3, fn: "after", args: {{}} }} }});
        for (let i = 0; i < 50 && posted.length < 3; i++) await new Promise((r) => setTimeout(r, 1));
        console.log(JSON.stringify(posted));
        process.exit(0);
      }});"""
    out = subprocess.run(["node", "--input-type=module", "-e", js], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    posted = json.loads(out.stdout.strip().splitlines()[-1])
    assert [p["id"] for p in posted] == [1, 2, 3]
    assert posted[0] == {"id": 1, "ok": True, "result": "first"}
    assert posted[1]["ok"] is False and posted[1]["error"]["type"] == "WorkerError" and posted[1]["error"]["message"]
    assert posted[2] == {"id": 3, "ok": True, "result": "after"}
