"""rank="auto", world_size="auto": every process of a launch takes its own
share of each epoch from the launcher's environment (torchrun, MPI, Slurm),
disjoint from the others', together the whole dataset."""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import libfeed
from conftest import BATCH, NIMG, PYTHON_DIR, mkdata

CHILD = r"""
import json, sys
import libfeed
with libfeed.Loader(sys.argv[1], batch_size=4, size=32, resize_shorter=40, workers=1, seed=5,
                    rank="auto", world_size="auto", epochs=2) as L:
    st = L.stats()
    epochs = [[int(i) for b in L for i in b.sample_ids] for _ in range(2)]
    print(json.dumps({"rank": st["rank"], "world_size": st["world_size"],
                      "launcher": st["launcher"], "state": L.state_dict(), "epochs": epochs}))
"""

LAUNCHER_ENV = {
    "torchrun": ("RANK", "WORLD_SIZE", "LOCAL_RANK"),
    "openmpi": ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"),
    "slurm": ("SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"),
}
ALL_VARS = [v for vs in LAUNCHER_ENV.values() for v in vs] + [
    "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_SIZE"]


def clean_env():
    env = {k: v for k, v in os.environ.items() if k not in ALL_VARS}
    env["PYTHONPATH"] = PYTHON_DIR + os.pathsep + env.get("PYTHONPATH", "")
    return env


def check_shares(results, world):
    assert sorted(r["rank"] for r in results) == list(range(world))
    pad = world * -(-NIMG // world) - NIMG  # 45 = 3 * 15: none at 3 ranks; 3 at 4
    for e in range(2):
        shares = [r["epochs"][e] for r in results]
        assert sum(len(s) for s in shares) == NIMG + pad
        assert set().union(*shares) == set(range(NIMG))  # every sample, once but the padding
    # each rank's order differs per epoch (the permutation is per epoch)
    assert any(r["epochs"][0] != r["epochs"][1] for r in results)


@pytest.mark.parametrize("launcher", sorted(LAUNCHER_ENV))
def test_processes_take_disjoint_shares(dataset, launcher):
    rank_var, size_var, local_var = LAUNCHER_ENV[launcher]
    world = 3
    procs = []
    for r in range(world):
        env = clean_env()
        env.update({rank_var: str(r), size_var: str(world), local_var: str(r)})
        procs.append(subprocess.Popen([sys.executable, "-c", CHILD, dataset], env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    results = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        results.append(json.loads(out))
    for r in results:
        assert r["launcher"] == launcher and r["world_size"] == world
        assert r["state"]["rank"] == r["rank"] and r["state"]["world_size"] == world
    check_shares(results, world)


def test_auto_without_a_launcher_fails_clearly(dataset):
    p = subprocess.run([sys.executable, "-c", CHILD, dataset], env=clean_env(),
                       capture_output=True, text=True, timeout=120)
    assert p.returncode != 0
    assert "no launcher in the environment" in p.stderr and "WORLD_SIZE" in p.stderr


TORCHRUN_CHILD = r"""
import json, sys
import torch.distributed as dist
import libfeed.torch as lt
dist.init_process_group("gloo")
with lt.Loader(sys.argv[1], batch_size=4, size=32, resize_shorter=40, workers=1, seed=5,
               rank="auto", world_size="auto", epochs=2) as L:
    epochs = [[int(i) for b in L for i in b.sample_ids] for _ in range(2)]
    mine = {"rank": dist.get_rank(), "epochs": epochs, "stats_rank": L.stats()["rank"]}
everyone = [None] * dist.get_world_size()
dist.all_gather_object(everyone, mine)
if dist.get_rank() == 0:
    with open(sys.argv[2], "w") as f:
        json.dump(everyone, f)
dist.destroy_process_group()
"""


def torch_python():
    """A python3 with torch.distributed: $LIBFEED_TORCH_PYTHON (scripts/test-python
    sets it to the PyPI torch of scripts/torch-venv), this one, or the system's."""
    for py in (os.environ.get("LIBFEED_TORCH_PYTHON"), sys.executable, "/usr/bin/python3"):
        if py and os.access(py, os.X_OK) and subprocess.run(
                [py, "-c", "import torch.distributed as d, numpy; assert d.is_available()"],
                capture_output=True).returncode == 0:
            return py
    return None


def torchrun_env():
    env = clean_env()
    for k in ("MASTER_ADDR", "MASTER_PORT", "OMP_NUM_THREADS"):
        env.pop(k, None)
    return env


_torchrun_works = {}


def torchrun(tmp_path):
    """[python, -m, torch.distributed.run] where torchrun works, else skip."""
    py = torch_python()
    if py is None:
        pytest.skip("no python3 with torch.distributed here (scripts/torch-venv makes one)")
    if py not in _torchrun_works:
        # torchrun itself must work here (Debian's torch 1.13 under Python 3.11 does not).
        probe = tmp_path / "probe.py"
        probe.write_text("import torch.distributed as d\nd.init_process_group('gloo')\n"
                         "d.destroy_process_group()\n")
        p = subprocess.run([py, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node",
                            "2", str(probe)], env=torchrun_env(), capture_output=True, text=True,
                           timeout=300)
        _torchrun_works[py] = p.returncode == 0, (p.stderr.strip().splitlines() or ["?"])[-1]
    ok, why = _torchrun_works[py]
    if not ok:
        pytest.skip("torchrun does not work with this torch: " + why)
    return [py, "-m", "torch.distributed.run"]


def run_torchrun(cmd, timeout=300):
    p = subprocess.run(cmd, env=torchrun_env(), capture_output=True, text=True, timeout=timeout)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    return p.stdout


def test_under_torchrun(dataset, tmp_path):
    run = torchrun(tmp_path)
    script = tmp_path / "child.py"
    script.write_text(TORCHRUN_CHILD)
    out = tmp_path / "out.json"
    run_torchrun(run + ["--standalone", "--nproc_per_node", "3", str(script), dataset, str(out)])
    results = json.loads(out.read_text())
    assert [r["stats_rank"] for r in results] == [r["rank"] for r in results]
    check_shares(results, 3)


def test_under_torchrun_two_nodes(dataset, tmp_path):
    """Two "nodes" without a cluster: two torchrun agents (--nnodes 2,
    --node_rank 0 and 1, 2 processes each) meeting at one rendezvous, as on
    two hosts. Shares stay disjoint across the nodes, each process has the
    LOCAL_RANK of its node, and device=cuda:local picks that local rank (the
    GPU, or without one create's error naming it)."""
    run = torchrun(tmp_path)
    child = TORCHRUN_CHILD.replace(
        'mine = {"rank": dist.get_rank(),',
        'import os\n'
        '    try:\n'
        '        with lt.Loader(sys.argv[1], batch_size=4, size=32, resize_shorter=40, workers=1,\n'
        '                       device="cuda:local") as G:\n'
        '            cuda = "ok " + G.stats()["backend"]\n'
        '    except Exception as e:\n'
        '        cuda = str(e)\n'
        '    mine = {"node": int(os.environ["GROUP_RANK"]), "local": int(os.environ["LOCAL_RANK"]),\n'
        '            "cuda": cuda, "rank": dist.get_rank(),')
    assert "GROUP_RANK" in child
    script = tmp_path / "child.py"
    script.write_text(child)
    out = tmp_path / "out.json"
    port = str(free_port())
    env = torchrun_env()
    procs = [subprocess.Popen(run + ["--nnodes", "2", "--node_rank", str(node), "--nproc_per_node",
                                     "2", "--master_addr", "127.0.0.1", "--master_port", port,
                                     str(script), dataset, str(out)],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for node in range(2)]
    try:
        for p in procs:
            o, e = p.communicate(timeout=300)
            assert p.returncode == 0, o[-3000:] + e[-3000:]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    results = json.loads(out.read_text())
    check_shares(results, 4)
    assert sorted((r["node"], r["local"]) for r in results) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    for r in results:
        assert r["rank"] == 2 * r["node"] + r["local"]
        if r["cuda"].startswith("ok "):
            assert r["cuda"] in (f"ok cuda:{r['local']}", "ok cuda:0"), r
        elif "without CUDA" not in r["cuda"]:
            assert f"local rank {r['local']} (torchrun)" in r["cuda"], r


def free_port():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_torch_process_group_gives_the_ranks(dataset, tmp_path):
    """libfeed.torch with rank/world_size="auto" uses the initialised process
    group (what DistributedSampler uses): the launcher's variables are
    removed before the loader is made, so only the group can tell."""
    py = torch_python()
    if py is None:
        pytest.skip("no python3 with torch.distributed here")
    child = TORCHRUN_CHILD.replace(
        'dist.init_process_group("gloo")\n',
        'dist.init_process_group("gloo")\nimport os\n'
        'for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK"):\n    os.environ.pop(k, None)\n')
    script = tmp_path / "child.py"
    script.write_text(child)
    out = tmp_path / "out.json"
    port = str(free_port())
    procs = []
    for r in range(3):
        env = clean_env()
        env.update({"RANK": str(r), "WORLD_SIZE": "3", "MASTER_ADDR": "127.0.0.1",
                    "MASTER_PORT": port})
        procs.append(subprocess.Popen([py, str(script), dataset, str(out)], env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err[-3000:]
    results = json.loads(out.read_text())
    assert [r["stats_rank"] for r in results] == [0, 1, 2]
    check_shares(results, 3)


def test_ddp_example_trains_and_resumes(dataset, tmp_path):
    """examples/train_torch_ddp.py on 2 CPU ranks (gloo): each epoch covers
    the dataset once across the ranks (45 images, padded to 2 x 23), and a
    resumed run continues with the next epoch."""
    py = torch_python()
    if py is None:
        pytest.skip("no python3 with torch.distributed here")
    example = os.path.join(os.path.dirname(PYTHON_DIR), "examples", "train_torch_ddp.py")
    ck = str(tmp_path / "ck.pt")

    def launch(extra, last):
        """Runs both ranks; returns rank 0's output. The work is done when rank 0
        has printed `last` (its last epoch's line, which follows an all_reduce of
        both ranks; the checkpoint is saved right after, and the resume below
        reads it). Debian's torch 1.13 can hang in the gloo process group's
        teardown at exit after that (about one run in seven, with or without
        libfeed): a rank still there 120 s after its start (a generous bound: the
        work takes seconds) is killed and the hang said, once its work is done;
        a rank that hangs before it fails the test. Never run again."""
        port = str(free_port())
        procs = []
        try:
            for r in range(2):
                env = clean_env()
                env.update({"RANK": str(r), "WORLD_SIZE": "2", "LOCAL_RANK": str(r),
                            "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": port})
                procs.append(subprocess.Popen(
                    [py, example, dataset, "--device", "cpu", "--batch", "8", "--size", "32",
                     "--workers", "1", "--checkpoint", ck] + extra,
                    env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
            outs, hung = [], []
            for r, p in enumerate(procs):
                try:
                    out, err = p.communicate(timeout=120)
                except subprocess.TimeoutExpired:
                    p.kill()
                    out, err = p.communicate()
                    hung.append(r)
                else:
                    assert p.returncode == 0, err[-3000:]
                outs.append(out)
            if hung:
                assert last in outs[0], "rank(s) %s hung before the work was done:\n%s" % (hung, outs[0])
                print("rank(s) %s hung in teardown after the work was done (torch's gloo): killed" % hung)
            return outs[0]
        finally:  # never leave a rank behind (later tests count this process's children)
            for p in procs:
                if p.poll() is None:
                    p.kill()
                    p.wait()

    out = launch(["--epochs", "2"], "epoch 1: 46 images on 2 ranks")
    assert "epoch 0: 46 images on 2 ranks" in out and "epoch 1: 46 images on 2 ranks" in out
    out = launch(["--epochs", "3", "--resume", ck], "epoch 2: 46 images on 2 ranks")
    assert "epoch 0:" not in out and "epoch 2: 46 images on 2 ranks" in out


# ---- resume with another world size or batch size ------------------------------------

def _ids_of(loader, limit=None):
    """Sample ids of the batches a `for` gives (at most limit batches), and how many."""
    out, n = [], 0
    for b in loader:
        out.extend(int(i) for i in b.sample_ids)
        n += 1
        if limit is not None and n >= limit:
            break
    return out, n


@pytest.mark.parametrize("world,world2,batch,batch2,stop", [
    (2, 4, 4, 4, 2), (4, 2, 4, 4, 1), (4, 3, 4, 4, 2), (2, 3, 4, 3, 3), (3, 2, 2, 5, 0),
    (1, 4, 8, 2, 4), (2, 2, 4, 4, 3)])
def test_resume_with_another_world_size(make_loader, world, world2, batch, batch2, stop):
    """A run at world size W stopped after `stop` batches of every rank; its
    rank 0 state resumes at W' (and batch size B'): within the epoch each
    sample comes once, but for the padding of the rest (W' * ceil(rest / W')
    - rest repeats), and the new ranks stay in step."""
    kw = dict(epochs=2, seed=9, workers=1)
    before, states = [], []
    for r in range(world):
        L = make_loader(rank=r, world_size=world, batch_size=batch, **kw)
        ids, n = _ids_of(L, stop) if stop else ([], 0)
        assert n == stop
        before += ids
        states.append(L.state_dict())
        L.close()
    st = states[0]
    assert all(s["consumed"] == st["consumed"] == stop * batch * world for s in states)
    after, counts = [], set()
    for r in range(world2):
        M = make_loader(rank=r, world_size=world2, batch_size=batch2, **kw)
        M.load_state_dict(st)
        assert M.position_samples() == (0, st["consumed"])
        ids, n = _ids_of(M)
        counts.add(n)
        after += ids
        # the next epoch is whole, at the new world size, from its start
        assert M.position_samples() == (1, 0)
        M.close()
    assert len(counts) == 1  # in step
    rest = NIMG - len(before)
    pad = world2 * -(-rest // world2) - rest
    assert len(after) == rest + pad
    seen = before + after
    assert set(seen) == set(range(NIMG))  # nothing skipped
    assert len(seen) - len(set(seen)) == pad  # nothing twice but the padding
    assert len(set(before)) == len(before)  # the saved run's part had no repeat


def test_resume_same_world_is_bitwise(make_loader):
    """consumed at the same world size and batch size: the very batches the
    uninterrupted run delivers (pixels included)."""
    kw = dict(epochs=1, seed=4, workers=1, world_size=2, rank=1, augment="train")
    L = make_loader(**kw)
    full = [(b.sample_ids.tolist(), np.ascontiguousarray(b.images).tobytes()) for b in L]
    M = make_loader(**kw)
    _ids_of(M, 2)
    st = M.state_dict()
    assert (st["epoch"], st["batch"], st["consumed"]) == (0, 2, 2 * BATCH * 2)
    N = make_loader(**kw)
    N.load_state_dict(st)
    assert N.position() == (0, 2)
    assert [(b.sample_ids.tolist(), np.ascontiguousarray(b.images).tobytes()) for b in N] == full[2:]


def test_resume_refuses_another_order(make_loader, tmp_path):
    """A position means nothing in another order: another seed, shuffle or
    dataset size is refused, naming what differs; an old state (no
    "consumed") still needs the same ranks."""
    L = make_loader(epochs=1, seed=9, world_size=2, rank=0)
    _ids_of(L, 1)
    st = L.state_dict()
    with pytest.raises(libfeed.FeedInvalidError, match=r"seed \(saved 9, here 10\)"):
        make_loader(epochs=1, seed=10).load_state_dict(st)
    with pytest.raises(libfeed.FeedInvalidError, match="shuffle"):
        make_loader(epochs=1, seed=9, shuffle=False).load_state_dict(st)
    small = mkdata(tmp_path / "small", 30, 11, 3)
    with pytest.raises(libfeed.FeedInvalidError, match=r"dataset_size \(saved 45, here 30\)"):
        make_loader(small, epochs=1, seed=9).load_state_dict(st)
    old = {k: v for k, v in st.items() if k != "consumed"}
    with pytest.raises(libfeed.FeedInvalidError, match="world_size"):
        make_loader(epochs=1, seed=9, world_size=3).load_state_dict(old)
    M = make_loader(epochs=1, seed=9, world_size=2, rank=0)
    M.load_state_dict(old)
    assert M.position() == (0, 1)
    # A position past the epoch is refused by the library itself.
    with pytest.raises(libfeed.FeedInvalidError, match="past the 45 samples"):
        M.seek_samples(0, 45)


# ---- examples/train_torch_ddp.py under torchrun ------------------------------------------

def _read_log(prefix, world):
    rows = []
    for r in range(world):
        path = f"{prefix}.rank{r}"
        if os.path.exists(path):
            with open(path) as f:
                rows += [json.loads(line) for line in f]
    return rows


def _check_epoch_shares(rows, epochs, world):
    """Every epoch: each sample once across the ranks, plus the padding."""
    pad = world * -(-NIMG // world) - NIMG
    for e in range(epochs):
        ids = [i for r in rows if r["epoch"] == e for i in r["ids"]]
        assert set(ids) == set(range(NIMG)) and len(ids) == NIMG + pad, (e, sorted(ids))
        steps = {}
        for r in rows:
            if r["epoch"] == e:
                steps[r["rank"]] = steps.get(r["rank"], 0) + 1
        assert len(set(steps.values())) == 1 and len(steps) == world  # in step


def test_ddp_example_under_torchrun_resumes_exactly(dataset, tmp_path):
    """torchrun --nproc_per_node 2, CPU, gloo: both ranks take rank and world
    size from the process group, DDP all-reduces the gradients, every epoch is
    each sample once across the ranks; a run stopped at a random step and
    resumed from its checkpoint logs the same batches and the same losses as
    an uninterrupted run. Then the same checkpoint resumes on 3 ranks: the
    rest of its epoch is split among them, nothing twice, nothing skipped."""
    import random

    run = torchrun(tmp_path)
    example = os.path.join(os.path.dirname(PYTHON_DIR), "examples", "train_torch_ddp.py")
    common = [example, dataset, "--device", "cpu", "--batch", "4", "--size", "32", "--workers", "1",
              "--epochs", "2"]
    base = run + ["--standalone", "--nproc_per_node"]
    full = tmp_path / "full"
    out = run_torchrun(base + ["2"] + common + ["--step-log", str(full)])
    assert "epoch 0: 46 images on 2 ranks" in out and "launcher process group" in out
    rows = _read_log(full, 2)
    _check_epoch_shares(rows, 2, 2)
    assert all(r["world"] == 2 for r in rows)
    steps = len(rows) // 2  # per rank: 12 a epoch (23 samples / 4)
    # The stop step is drawn from a seed, printed (shown with a failure):
    # LIBFEED_TEST_SEED=N reruns that draw; unset, each run draws a new one.
    seed = int(os.environ.get("LIBFEED_TEST_SEED") or random.SystemRandom().randrange(1 << 32))
    stop = random.Random(seed).randrange(1, steps)
    print(f"LIBFEED_TEST_SEED={seed}: stopping after step {stop} of {steps}")

    ck, part = tmp_path / "ck.pt", tmp_path / "part"
    out = run_torchrun(base + ["2"] + common + ["--step-log", str(part), "--checkpoint", str(ck),
                                                "--stop-at", str(stop)])
    assert f"stopped after {stop} steps" in out
    assert len(_read_log(part, 2)) == 2 * stop
    run_torchrun(base + ["2"] + common + ["--step-log", str(part), "--resume", str(ck)])
    key = lambda r: (r["epoch"], r["batch"], r["rank"])  # noqa: E731
    a, b = sorted(rows, key=key), sorted(_read_log(part, 2), key=key)
    assert [(key(r), r["ids"]) for r in a] == [(key(r), r["ids"]) for r in b]
    worst = max(abs(x["loss"] - y["loss"]) for x, y in zip(a, b))
    print(f"largest loss difference, resumed vs uninterrupted: {worst}")
    assert worst <= 1e-6 * max(1.0, max(abs(x["loss"]) for x in a)), worst

    # The same checkpoint on 3 ranks: the stopped epoch's rest, re-split.
    other = tmp_path / "other"
    out = run_torchrun(base + ["3"] + common + ["--step-log", str(other), "--resume", str(ck)])
    assert "resumed from 2 ranks on 3" in out
    per_epoch = steps // 2
    es, done_steps = divmod(stop, per_epoch)  # the epoch resumed, its steps done at 2 ranks
    done = [r for r in a if r["epoch"] == es and r["batch"] < done_steps]
    rows3 = _read_log(other, 3)
    assert all(r["world"] == 3 for r in rows3)
    more = [r for r in rows3 if r["epoch"] == es]
    rest = NIMG - 2 * 4 * done_steps
    pad3 = 3 * -(-rest // 3) - rest
    ids = [i for r in done + more for i in r["ids"]]
    assert set(ids) == set(range(NIMG)), sorted(ids)  # nothing skipped
    assert len(ids) == NIMG + pad3, (len(ids), pad3)  # nothing twice but the new padding
    assert len({sum(1 for r in more if r["rank"] == k) for k in range(3)}) == 1  # in step
    later = [r for r in rows3 if r["epoch"] > es]
    assert later or es == 1
    if later:  # the next epoch whole at 3 ranks: 45 = 3 x 15, no padding
        _check_epoch_shares([dict(r, epoch=r["epoch"] - es - 1) for r in later], 1, 3)
