"""ui.js `latest`, the one-at-a-time rule every slider-driven widget (and the control panel) uses:
run in Node on the module itself."""
import json
import subprocess

from conftest import ROOT


def test_latest_runs_one_at_a_time_keeps_the_newest_and_answers_every_request():
    """While a run is in flight, requests wait and only the newest runs (with its arguments);
    each request's promise settles after the run that answers it (its own, or the newer one that
    replaced it); a failing run does not stop the next."""
    url = (ROOT / "web" / "js" / "ui.js").as_uri()
    js = f"""import({json.dumps(url)}).then(async (m) => {{
      const log = [];
      let release;
      const f = m.latest(async (x) => {{
        log.push("start " + x);
        if (x === 1) await new Promise((r) => (release = r));
        if (x === 4) throw new Error("boom");
        log.push("end " + x);
      }});
      const settled = [];
      const reqs = [1, 2, 3].map((x) => f(x).then(() => settled.push([x, log.length])));
      await new Promise((r) => setTimeout(r, 10));
      const whileRunning = [...log];
      release();
      await Promise.all(reqs);
      await f(4);
      await f(5);
      console.log(JSON.stringify({{ whileRunning, log, settled }}));
      process.exit(0);
    }});"""
    out = subprocess.run(["node", "--input-type=module", "-e", js], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["whileRunning"] == ["start 1"]
    # 2 was replaced by 3 while 1 ran; 4 failed, and 5 still ran
    assert got["log"] == ["start 1", "end 1", "start 3", "end 3", "start 4", "start 5", "end 5"]
    # 1 settles after its run ended ("end 1" is the log's 2nd entry); 2 and 3 only after 3's ("end 3", the 4th)
    at = dict(got["settled"])
    assert sorted(at) == [1, 2, 3] and at[1] >= 2 and at[2] >= 4 and at[3] >= 4
