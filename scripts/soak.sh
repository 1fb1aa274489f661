#!/usr/bin/env bash
# make soak: the server crash test with many SIGKILL rounds, then sustained load from 50
# clients against a real `attach serve`, then two servers on one S3 bucket under 8 clients; writes the figures into RELIABILITY.md between the
# soak markers. Expects `swift build --build-tests` done and $ATTACH_CORPUS set (the Makefile
# does both). SOAK_ROUNDS (default 50) and SOAK_SECONDS (default 60) change the run.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
rounds=${SOAK_ROUNDS:-50}
seconds=${SOAK_SECONDS:-60}
swift=${SWIFT:-swift}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# One after the other, so neither measures the other's load.
status=0
ATTACH_CRASH_ROUNDS=$rounds "$swift" test --skip-build --filter ServerCrashTests 2>&1 | tee "$log" || status=$?
ATTACH_SOAK_SECONDS=$seconds "$swift" test --skip-build --filter LoadTests 2>&1 | tee -a "$log" || status=$?
# Two servers on one S3 bucket, then two on PostgreSQL + S3 (the Makefile runs this script
# under scripts/with-services.sh, which starts both).
ATTACH_SCALE_SECONDS=$seconds "$swift" test --skip-build --filter ScaleOutTests 2>&1 | tee -a "$log" || status=$?

python3 - "$log" "$status" "$rounds" "$seconds" RELIABILITY.md <<'PY'
import datetime, os, re, subprocess, sys
log_path, status, rounds, seconds, target = sys.argv[1:]
log = open(log_path, encoding="utf-8", errors="replace").read()

def figures(test):
    match = re.search(r"soak figures: test=%s (.*)" % test, log)
    return dict(pair.split("=", 1) for pair in match.group(1).split()) if match else None

issues = sum(int(n) for n in re.findall(r"Test run with \d+ tests? .* failed .* with (\d+) issues?", log))
crash, load, scale, pgscale = figures("crash"), figures("load"), figures("scale-out"), figures("postgres-scale-out")
mib = lambda b: "%.0f MiB" % (int(b) / 1048576)
commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
lines = [
    "<!-- soak:begin (written by scripts/soak.sh; do not edit by hand) -->",
    "Latest `make soak` (`SOAK_ROUNDS=%s SOAK_SECONDS=%s scripts/soak.sh`), %s, commit %s, debug build, %d cores: %s."
    % (rounds, seconds, datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), commit,
       os.cpu_count(), "passed" if status == "0" else "FAILED (exit %s)" % status),
    "",
    "| figure | value |",
    "|---|---|",
]
if crash:
    lines += [
        "| crash: rounds (SIGKILL + restart) | %s |" % crash["rounds"],
        "| crash: requests (uploads / replacements / deletions acknowledged) | %s (%s / %s / %s) |"
        % (crash["requests"], crash["uploads"], crash["replacements"], crash["deletions"]),
        "| crash: requests cut off by the kill | %s |" % crash["unanswered"],
        "| crash: concurrent `gc --grace 0` runs | %s |" % crash["gc-runs"],
        "| crash: originals compared after restarts | %s (%.2f GB) |" % (crash["originals-compared"], int(crash["bytes-compared"]) / 1e9),
    ]
else:
    lines.append("| crash | no figures (the test did not finish) |")
if load:
    lines += [
        "| load: clients, duration | %s, %s s |" % (load["clients"], load["seconds"]),
        "| load: requests (uploads / thumbnail and original reads) | %s (%s / %s) |" % (load["requests"], load["uploads"], load["reads"]),
        "| load: failed requests (5xx, wrong status, transport errors) | %s |" % load["failures"],
        "| load: acknowledged uploads missing or different afterwards | %s |" % load["uploads-lost"],
        "| load: server RSS after %s warm-up, at the end | %s, %s (%.2f×) |"
        % (load["warm-up"], mib(load["rss-warm"]), mib(load["rss-end"]), int(load["rss-end"]) / int(load["rss-warm"])),
    ]
else:
    lines.append("| load | no figures (the test did not finish) |")
if scale:
    lines += [
        "| scale-out: servers on one store and S3 bucket, clients, duration | %s, %s, %s s |" % (scale["servers"], scale["clients"], scale["seconds"]),
        "| scale-out: uploads acknowledged, all read back byte-identical from both servers | %s |" % scale["uploads"],
        "| scale-out: concurrent `gc --grace 0` runs; `verify` exit | %s; %s |" % (scale["gc-runs"], scale["verify-exit"]),
    ]
else:
    lines.append("| scale-out | no figures (the test did not finish) |")
if pgscale:
    lines += [
        "| scale-out on PostgreSQL + S3: servers (separate folders), clients, duration | %s, %s, %s s |" % (pgscale["servers"], pgscale["clients"], pgscale["seconds"]),
        "| scale-out on PostgreSQL + S3: uploads acknowledged, all read back byte-identical from both servers | %s |" % pgscale["uploads"],
        "| scale-out on PostgreSQL + S3: concurrent `gc --grace 0` runs; `verify` exit | %s; %s |" % (pgscale["gc-runs"], pgscale["verify-exit"]),
    ]
else:
    lines.append("| scale-out on PostgreSQL + S3 | no figures (the test did not finish) |")
lines += [
    "| failed expectations (all tests), bytes lost | %s, %s |" % (issues, "0" if status == "0" else "see the failures"),
    "<!-- soak:end -->",
]
text = open(target, encoding="utf-8").read()
begin, end = text.find("<!-- soak:begin"), text.find("<!-- soak:end -->")
if begin < 0 or end < 0:
    sys.exit("RELIABILITY.md has no soak markers")
end += len("<!-- soak:end -->")
open(target, "w", encoding="utf-8").write(text[:begin] + "\n".join(lines) + text[end:])
print("\n".join(lines))
PY
exit "$status"
