"""Benchmark: the start-up of the ``arbitre`` command, whole processes (issue 16).

Runs each of ``arbitre --help``, ``arbitre --version`` and ``arbitre los
examples/frostgrave-demo.yaml -q`` N times as a fresh process (stdout to /dev/null, after
one untimed warm-up run each that may write byte code, so caches are warm) and prints the
median and the minimum wall time. The baselines are run the same way: ``python3 -c pass`` (the
interpreter alone), ``python3 -c "import typer, rich"`` (the bare libraries of the
command line) and the ``--help`` of a one-command typer app (typer's own help machinery,
which imports rich's markdown and syntax modules); the ratio is arbitre's median over the
bare ``import typer, rich``. The kernels are chosen as by default (``ARBITRE_JIT`` unset):
the demo runs them interpreted.

Usage: ``python bench/bench_startup.py [-n 9] [--arbitre PATH] [--keep-dont-write-bytecode]
[--instructions]`` (``--keep-dont-write-bytecode`` keeps ``PYTHONDONTWRITEBYTECODE``: the
project's files are then compiled at every start unless their byte code was written
before). What the interpreter's own start imports through ``.pth`` files of this machine's
site-packages (``certifi`` here, not arbitre's: a fresh venv lacks it) is printed apart,
from ``python -X importtime -c pass``. ``--instructions`` also counts the instructions run
(valgrind's callgrind, one run each, a minute or more): unlike times, a count does not
change with the machine's load. CPU times (user + system) are
printed beside the wall times: steadier on a loaded machine. The default command is
the ``arbitre`` script next to this interpreter (a pyenv shim adds its own ~0.1-0.3 s),
else ``python -m arbitre``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "examples" / "frostgrave-demo.yaml"

BARE_TYPER_APP = """
import typer
app = typer.Typer(add_completion=False)
@app.command()
def los(file: str, quiet: bool = False) -> None:
    "Rule every line of sight asked."
app()
"""


def arbitre_command(given: str | None) -> list[str]:
    """The command that runs ``arbitre``: the one given, else the console script beside
    this interpreter, else ``python -m arbitre``."""
    if given:
        return [given]
    script = Path(sys.executable).parent / "arbitre"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "arbitre"]


def timed(cmd: list[str], n: int, env: dict[str, str]) -> tuple[list[float], list[float]]:
    """Wall times and CPU times (user + system, of the process and its children) of
    ``n`` runs of ``cmd`` (after one warm-up run); a failure stops. On a loaded machine
    the CPU time is the steadier of the two."""

    def once() -> tuple[float, float]:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - t0
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            raise SystemExit(f"{' '.join(cmd)}: exit {code}")
        return elapsed, usage.ru_utime + usage.ru_stime

    once()
    runs = [once() for _ in range(n)]
    return [w for w, _ in runs], [c for _, c in runs]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=9, help="Runs of each command (default 9).")
    parser.add_argument("--arbitre", help="The arbitre command to time (default: see above).")
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="Also count the instructions of `los demo -q` and of the bare `import typer, rich` "
        "(valgrind --tool=callgrind; slow).",
    )
    parser.add_argument(
        "--keep-dont-write-bytecode",
        action="store_true",
        help="Keep PYTHONDONTWRITEBYTECODE if set (default: unset it, as a normal install "
        "writes byte code: the warm-up runs write it).",
    )
    args = parser.parse_args()
    drop = (
        ("ARBITRE_JIT",)
        if args.keep_dont_write_bytecode
        else ("ARBITRE_JIT", "PYTHONDONTWRITEBYTECODE")
    )
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update({"LC_ALL": "C", "LANG": "C"})
    arbitre = arbitre_command(args.arbitre)
    py = sys.executable
    runs = [
        ("python3 -c pass", [py, "-c", "pass"]),
        ("python3 -c 'import typer, rich'", [py, "-c", "import typer, rich"]),
        ("bare typer app --help", [py, "-c", BARE_TYPER_APP, "--help"]),
        ("arbitre --help", [*arbitre, "--help"]),
        ("arbitre --version", [*arbitre, "--version"]),
        ("arbitre los --help", [*arbitre, "los", "--help"]),
        ("arbitre los demo -q", [*arbitre, "los", str(DEMO), "-q"]),
        ("python3 -m arbitre --help", [py, "-m", "arbitre", "--help"]),
        ("python3 -m arbitre los demo -q", [py, "-m", "arbitre", "los", str(DEMO), "-q"]),
    ]
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(f"arbitre command: {' '.join(arbitre)}; {args.n} runs each")
    print(f"PYTHONDONTWRITEBYTECODE: {env.get('PYTHONDONTWRITEBYTECODE', '(unset)')}")
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    medians: dict[str, float] = {}
    cpus: dict[str, float] = {}
    print(f"{'command':34} {'median':>8} {'min':>8} {'cpu':>8}")
    for name, cmd in runs:
        walls, cpu = timed(cmd, args.n, env)
        medians[name], cpus[name] = statistics.median(walls), statistics.median(cpu)
        print(f"{name:34} {medians[name]:8.3f} {min(walls):8.3f} {cpus[name]:8.3f}  s")
    bare = "python3 -c 'import typer, rich'"
    print("ratio to the bare `import typer, rich` (medians: wall, cpu):")
    for name in (
        "bare typer app --help",
        "arbitre --help",
        "arbitre --version",
        "arbitre los --help",
        "arbitre los demo -q",
        "python3 -m arbitre --help",
        "python3 -m arbitre los demo -q",
    ):
        print(f"  {name:32} {medians[name] / medians[bare]:5.2f} {cpus[name] / cpus[bare]:5.2f}")
    pth = site_imports(py, args.n, env)
    if pth:
        shown = ", ".join(f"{name} {ms:.1f} ms" for name, ms in pth.items())
        print(f"imported at the interpreter's start by site's .pth files (median): {shown}")
    if args.instructions:
        los = instructions([py, "-m", "arbitre", "los", str(DEMO), "-q"], env)
        typer_rich = instructions([py, "-c", "import typer, rich"], env)
        print(f"instructions: arbitre los demo -q {los / 1e6:.0f} M, ", end="")
        print(f"import typer, rich {typer_rich / 1e6:.0f} M, ratio {los / typer_rich:.2f}")
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


def site_imports(py: str, n: int, env: dict[str, str]) -> dict[str, float]:
    """The modules ``site`` imports at start beyond its own (through ``.pth`` files), with
    their median cumulative import time in ms over ``n`` runs of ``python -c pass``."""
    found: dict[str, list[float]] = {}
    for _ in range(n):
        done = subprocess.run(
            [py, "-X", "importtime", "-c", "pass"], capture_output=True, text=True, env=env
        )
        for line in done.stderr.splitlines():
            parts = line.split("|")
            if len(parts) != 3 or not parts[1].strip().isdigit():
                continue
            name = parts[2][1:].rstrip()  # after the space that follows "|"
            if name.startswith("  ") and not name.startswith("   "):  # imported by site
                module = name.strip()
                if module in PTH_MODULES:
                    found.setdefault(module, []).append(int(parts[1]) / 1000)
    return {k: statistics.median(v) for k, v in found.items()}


#: Modules this machine's ``.pth`` files import at every start (not arbitre's).
PTH_MODULES = ("certifi", "_distutils_hack", "distutils-precedence", "_virtualenv")


def instructions(cmd: list[str], env: dict[str, str]) -> int:
    """The instructions one run of ``cmd`` executes (valgrind's callgrind ``Ir``)."""
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd],
        capture_output=True,
        text=True,
        env={**env, "PYTHONHASHSEED": "0"},
        check=True,
    )
    for line in done.stderr.splitlines():
        if "Collected" in line:
            return int(line.split()[-1])
    raise SystemExit(f"no instruction count from valgrind for {' '.join(cmd)}")


if __name__ == "__main__":
    main()
