#!/usr/bin/env python3
"""Runs the code samples of README.md and docs/ and checks that their output keeps its shape.

Usage: docs_samples.py ATTACH_BINARY CORPUS_DIR OUTPUT_DIR [--only DOC[:LINE]]... [--docs FILE...]
                       [--jobs N] [--keep] [--record]

  --only DOC     run only the samples of DOC (a path as listed, e.g. docs/api.md), or with DOC:LINE
                 only the block whose fence is on that line (and the blocks its chain runs before it);
                 repeatable
  --docs FILE..  read these Markdown files instead of the repository's (e.g. an edited copy)
  --jobs N       chains of samples run at once (default 3; the samples mostly wait on servers)
  --keep         keep the sandboxes (under /tmp) for a look afterwards
  --record       go on past a mismatch (the block still fails), to get a whole block's real run
                 in OUTPUT_DIR/transcripts/ (written for every transcript, in the doc's ids) when
                 updating a doc

Samples (fenced blocks in README.md, docs/*.md, docs/internals/*.md):

  ```console   a transcript: each line starting with `$ ` is a command (bash: `$(...)`, pipes
               and `#` comments work; a line ending in `\\` continues on the next), the lines
               after it until the next `$ ` are its output as the doc shows it (stdout and stderr
               together). An untagged block whose first line starts with `$ ` is one too.
  ```bash      a script: run with `set -e`; it must exit 0 (output not compared).
  ```python    a script: run with python3 (or `venv=`'s), `prelude=` put before it; it must exit 0.
  ```swift     must appear verbatim (line by line, comments and blank lines aside) in a test under
               Tests/ or in a DocC catalog or doc comment under Sources/; the line says which.
  ```nginx     checked with `nginx -t`, inside an `http { }` block.
  Other blocks (untagged output listings, tables) are text, not samples.

Each block, or chain of blocks (`continues`), runs in a fresh folder under /tmp that is its
working folder and $HOME, in one bash session (variables, `cd` and jobs started with `&` carry from
command to command), with `attach` on PATH being the binary under test, ATTACH_*, S3_*, AWS_* and
PG* removed from the environment, TZ=UTC, a time limit per command (30 s), $CORPUS naming the
corpus and $SAMPLES this folder (for helpers such as docs_hostile_peer.py). Every process the
session started is stopped at its end, also on failure or Ctrl-C. Chains run three at a time
(--jobs), and beside them the ones on the shared services, one after the other.

Ports: every port a block names in `127.0.0.1:P`, `localhost:P`, `0.0.0.0:P`, `--port P`,
`port: P` or `ATTACH_PORT=P` is replaced by a free one (the same one throughout a chain), and the
free port is written back as P in the output (with `services`, 55432 and 59000 anywhere stand for
the services' ports). Paths under /dev/shm in commands are moved to a folder of this run.

Ids: a value the output shows (a UUID, a hex id of 8 or more digits, an upload id, a 10+ digit
number) is learnt from each matched line, the doc's value paired with the real one, so a later
command that names the doc's value, or a prefix of it (6 or more characters), gets the real one.

A command's output is compared after `normalise()` (below) on both sides, line by line:
  - `…` in an expected line matches any text; a line that is only `…` or `...` matches any number
    of lines; a value cut short with `…` (`5c3011…`, `125c9c95-…`) stands for the whole value;
  - a line that is JSON on both sides is compared as JSON: the same keys (all of them, or with
    `json=subset` the ones the doc shows), arrays of the same length, strings by shape, numbers as
    numbers, true/false/null exactly;
  - output of jobs started with `&` (a server's log) is not the command's own: the lines the doc
    shows for such a job, or after a later command, must appear among it, in order, others being
    skipped (waiting up to 20 s, or `timeout=`, for them, as a terminal would show them arriving);
  - trailing blank lines are ignored; the exit status must be 0 unless `exit=` allows another.

Directives: an HTML comment (invisible on GitHub) on the line(s) right before the fence,
  <!-- sample: KEY=VALUE KEY="VALUE WITH SPACES" FLAG -->
with values quoted as in the shell; setup, serve and values run in the order written:
  setup="SHELL"      run first in the block's session (its output is not compared; it must exit 0),
                     e.g. cp "$CORPUS/fifty/photo-00.jpg" seed.jpg
  serve="P [ARGS]"   start `attach serve --port FREE ARGS` (ARGS default: the default store,
                     ./attach-data) before the block, standing for the server the doc reaches at
                     port P; its log is kept in the output folder
  values="DOC=EXPR"  the doc's value DOC (an id, a hash) stands for the shell expression EXPR
                     (e.g. "$ID", after setup), space-separated pairs
  continues          run in the session of the previous sample of the same doc (its folder, store,
                     variables and servers); continues=NAME: of the sample marked name=NAME
  name=NAME          names a sample for a later continues=NAME
  exit=N[,M]         a command may exit N (besides 0); the output shows which one fails
  output=any         do not compare outputs (exit statuses still count); only where output varies
                     by nature
  eventually         a command whose output differs is run again, every half second for up to
                     20 s, until it matches: for a live system's state once it settled (a block whose
                     commands may be repeated)
  unordered          a command's output lines may come in any order (a listing ordered by random ids)
  json=subset        JSON lines may leave keys out (the doc says it shows some fields)
  headers=subset     `Name: value` header lines the doc leaves out of an HTTP answer are skipped
  services           the repository's local PostgreSQL and S3 store (scripts/services) run, on
                     ports of their own, and the session looks like a checkout: scripts/,
                     Makefile, contrib/, .cache/corpus, .build/debug/attach and
                     .build/services/{pg,s3} link to the repository, the corpus, the binary under
                     test and the services; the doc's ports 55432 and 59000 stand for theirs.
                     These samples run one after the other, beside the rest; services=last: after
                     the others (the sample stops a service)
  checkout           the checkout links of `services`, without the services
  root               needs root (skipped otherwise); `sudo` in a command then runs it as it is
  unprivileged       (first block of a chain) run as root without its power over file modes
                     (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH), as a user who may not read a file
                     of mode 000
  cleanup="SHELL"    run when the chain ends, before its processes are stopped (e.g. nginx -s stop)
  timeout=N          seconds a command of this block may take (default 30)
  venv="DIR PKG MOD" for python blocks: run by DIR/bin/python (DIR relative to the repository),
                     made with PKG from PyPI by Tests/e2e/python-venv.sh unless MOD imports there
  prelude="CODE"     for python blocks: code run before the sample (e.g. note_id = os.environ[...])
  serves             (bash) the script starts a server that runs until stopped: it must print
                     `serving ` within 15 s (and is stopped with the chain)
  synopsis="CMD"     the block is a usage synopsis: every --option in it must be one of CMD's
                     (its --help), and a default it shows, that option's default
  skip="REASON"      not run; only for samples that cannot run here (a build of the package,
                     systemd, apt-get, changes to /etc or /usr/local, a network service outside
                     the machine, a step make test runs on its own); the reason is printed and
                     the skips are counted

Adding a sample: write the transcript as a real run printed it; when it needs files, a server or
ids from before the block, add a directive; run `make docs-test` (or this script with
--only docs/FILE.md:LINE; with --record, OUTPUT_DIR/transcripts/ then holds the real run to paste
from). Each block prints `ok`, `skip` or `FAIL` with its doc and line; the summary is
`docs-samples: N passed, M skipped, F failed`; OUTPUT_DIR/docs-samples.log has every command, its
raw output and status.
"""
import argparse
import concurrent.futures
import json
import os
import re
import selectors
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_DOCS = ["README.md", "docs/user-guide.md", "docs/operations.md", "docs/scaling-out.md",
                "docs/api.md", "docs/development.md", "docs/ARCHITECTURE.md"]
COMMAND_TIMEOUT = 30
BACKGROUND_WAIT = 20
SERVICE_PORTS = {"pg": 55432, "s3": 59000}  # the ports the docs show the services on
# the commands the samples use, and the Debian package of each
TOOLS = {"curl": "curl", "jq": "jq", "unzip": "unzip", "openssl": "openssl", "strace": "strace",
         "nginx": "nginx-light", "sqlite3": "sqlite3", "setpriv": "util-linux"}


# ----------------------------------------------------------------------------------------------
# The normaliser: one place that decides which differences are values and which are shape.

UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
NORMALISE = [
    # a value cut short in the doc (5c3011…, 125c9c95-…) is elided whole
    (re.compile(r"[0-9a-f][0-9a-f-]*…"), "…"),
    # temporary folders, home folders: /tmp/tour/x, /root/Pictures, /home/me/attach-data
    (re.compile(r"(?:/tmp|/var/tmp|/dev/shm)/[^/\s:'\"`]+|/root(?=/|\b)|/home/[^/\s:'\"`]+"), "<dir>"),
    (re.compile(UUID), "<uuid>"),
    # dates and times: ISO 8601, HTTP dates, ls -l dates
    (re.compile(r"\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?)?"), "<time>"),
    (re.compile(r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d " + MONTH + r" \d{4} \d\d:\d\d:\d\d GMT"), "<time>"),
    (re.compile(MONTH + r" +\d+ +(?:\d\d:\d\d|\d{4})"), "<time>"),
    # tokens: base64-like runs with upper and lower case letters and digits (session keys)
    (re.compile(r"(?<![\w+/])(?=[\w+/=-]*[A-Z])(?=[\w+/=-]*[a-z])(?=[\w+/=-]*\d)[\w+/-]{16,}=*"), "<token>"),
    # sizes (durations are numbers and a unit)
    (re.compile(r"\d+(?:\.\d+)? ?(?:B|kB|MB|GB|TB|KiB|MiB|GiB|TiB)\b"), "<size>"),
    # hex words: short ids, hashes, upload ids (with a digit, or 8 or more hex letters)
    (re.compile(r"(?<![0-9A-Za-z])(?:[0-9a-f]*\d[0-9a-f]*|[a-f]{8,})(?![0-9A-Za-z])"), "<n>"),
    # any other number, with its decimals
    (re.compile(r"\d+(?:\.\d+)*"), "<n>"),
    (re.compile(r"\s+"), " "),
]


def normalise(line):
    """The shape of an output line: values replaced by <uuid>, <time>, <token>, <size>, <dir> and
    <n> (numbers, hex ids and hashes), runs of white space made one space, ends trimmed, and a
    Set-Cookie line's attributes sorted."""
    line = line.rstrip("\r")
    cookie = re.match(r"(?i)(set-cookie: *[^;]*)((?:;.*)?)$", line)
    if cookie:  # the server writes a cookie's attributes in no fixed order
        line = cookie.group(1) + "".join(sorted("; " + a.strip() for a in cookie.group(2).split(";") if a.strip()))
    for pattern, token in NORMALISE:
        line = pattern.sub(token, line)
    return line.strip()


def is_line_wildcard(line):
    return line.strip() in ("…", "...")


_patterns = {}


def text_matches(expected, actual):
    """expected (a doc line) against actual (a real line), both by shape; … in expected matches
    any text."""
    key = normalise(expected)
    pattern = _patterns.get(key)
    if pattern is None:
        pattern = re.compile(".*?".join(re.escape(part) for part in key.split("…")), re.S)
        _patterns[key] = pattern
    return pattern.fullmatch(normalise(actual)) is not None


def json_matches(expected, actual, subset):
    if isinstance(expected, dict):
        # keys may be values too (a peer id): they pair up by shape
        if not isinstance(actual, dict) or (not subset and len(expected) != len(actual)):
            return False
        unused = [(normalise(key), value) for key, value in actual.items()]
        for key, value in expected.items():
            shape = normalise(key)
            found = next((i for i, (k, v) in enumerate(unused) if k == shape and json_matches(value, v, subset)), None)
            if found is None:
                return False
            del unused[found]
        return True
    if isinstance(expected, list):
        return (isinstance(actual, list) and len(expected) == len(actual)
                and all(json_matches(e, a, subset) for e, a in zip(expected, actual)))
    if isinstance(expected, bool) or expected is None:
        return expected is actual
    if isinstance(expected, (int, float)):
        return isinstance(actual, (int, float)) and not isinstance(actual, bool)
    if isinstance(expected, str):
        return isinstance(actual, str) and text_matches(expected, actual)
    return False


def as_json(line):
    line = line.strip()
    if not line or line[0] not in "{[":
        return None
    try:
        return json.loads(line)
    except ValueError:
        return None


def line_matches(expected, actual, json_subset):
    e = as_json(expected)
    if e is not None:
        a = as_json(actual)
        if a is not None:
            return json_matches(e, a, json_subset)
    return text_matches(expected, actual)


def match(expected, actual, skippable, json_subset):
    """Aligns the doc's lines with the real ones: every real line not skippable must be matched,
    in order; a wildcard line matches any number of lines. Returns the (doc, real) index pairs,
    or None."""
    ne, na = len(expected), len(actual)
    ok = {}

    def line_ok(i, j):
        if (i, j) not in ok:
            ok[(i, j)] = line_matches(expected[i], actual[j], json_subset)
        return ok[(i, j)]

    # reach[i][j]: expected[i:] can match actual[j:]
    reach = [[False] * (na + 1) for _ in range(ne + 1)]
    tail = True
    for j in range(na, -1, -1):
        if j < na:
            tail = tail and skippable[j]
        reach[ne][j] = tail
    for i in range(ne - 1, -1, -1):
        wildcard = is_line_wildcard(expected[i])
        for j in range(na, -1, -1):
            if wildcard:
                reach[i][j] = reach[i + 1][j] or (j < na and reach[i][j + 1])
            elif j < na:
                reach[i][j] = ((reach[i + 1][j + 1] and line_ok(i, j))
                               or (skippable[j] and reach[i][j + 1]))
    if not reach[0][0]:
        return None
    pairs, i, j = [], 0, 0
    while i < ne:
        if is_line_wildcard(expected[i]):
            if reach[i + 1][j]:
                i += 1
            else:
                j += 1
        elif j < na and reach[i + 1][j + 1] and line_ok(i, j):
            pairs.append((i, j))
            i += 1
            j += 1
        else:
            j += 1
    return pairs


def match_unordered(expected, actual, skippable, json_subset, known):
    """Like match(), the lines in any order (`unordered`). A doc line goes to the real line of its
    shape that holds the most values already learnt for it; a `…` line allows extra lines."""
    extra_ok = any(is_line_wildcard(e) for e in expected)
    used, pairs = set(), []
    for i, e in enumerate(expected):
        if is_line_wildcard(e):
            continue
        wanted = [known[v] for v in values_in(e) if v in known]
        best, score = None, -1
        for j, a in enumerate(actual):
            if j in used or not line_matches(e, a, json_subset):
                continue
            points = sum(1 for w in wanted if w in a or any(r.startswith(w) for r in values_in(a)))
            if points > score:
                best, score = j, points
        if best is None:
            return None
        used.add(best)
        pairs.append((i, best))
    if not extra_ok and any(not skip and j not in used for j, skip in enumerate(skippable)):
        return None
    return pairs


def first_difference(expected, actual, skippable, json_subset):
    """For the report: the first doc line the real output does not have where it should, and the
    real line found there instead (None: nothing more)."""
    j, loose = 0, False
    for i, line in enumerate(expected):
        if is_line_wildcard(line):
            loose = True
            continue
        k = j
        while k < len(actual) and (loose or skippable[k]) and not line_matches(line, actual[k], json_subset):
            k += 1
        if k < len(actual) and line_matches(line, actual[k], json_subset):
            j, loose = k + 1, False
            continue
        return i, next((actual[m] for m in range(j, len(actual)) if not skippable[m]), None)
    return len(expected), next((actual[m] for m in range(j, len(actual)) if not skippable[m]), None)


# ----------------------------------------------------------------------------------------------
# Values learnt from output, and the doc's ports

# a value worth learning: a UUID, or a word of 8 or more hex digits (a short id, all digits too
# now and then, an upload id, a hash, a millisecond time)
VALUE = re.compile(r"(?<![0-9A-Za-z])(?:" + UUID + r"|[0-9a-f]{8,})(?![0-9A-Za-z])")


def values_in(line):
    return VALUE.findall(line)


def kind(value):
    return ("uuid" if re.fullmatch(UUID, value) else "word", len(value))


PORT_PATTERNS = [
    re.compile(r"(?<=127\.0\.0\.1:)(\d{2,5})\b"),
    re.compile(r"(?<=localhost:)(\d{2,5})\b"),
    re.compile(r"(?<=0\.0\.0\.0:)(\d{2,5})\b"),
    re.compile(r"(?<=--port[ =])(\d{2,5})\b"),
    re.compile(r"(?:(?<=^port: )|(?<=\\nport: ))(\d{2,5})\b", re.M),
    re.compile(r"(?<=ATTACH_PORT=)(\d{2,5})\b"),
]

_used_ports = set()
_ports_lock = threading.Lock()


def free_port():
    with _ports_lock:
        while True:
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = s.getsockname()[1]
            if port not in _used_ports:
                _used_ports.add(port)
                return port


# ----------------------------------------------------------------------------------------------
# Reading the docs

FENCE = re.compile(r"^(\s*)```([\w+-]*)\s*$")
DIRECTIVE = re.compile(r"<!--\s*sample:(.*?)-->", re.S)
KNOWN = {"checkout", "cleanup", "continues", "eventually", "exit", "headers", "json", "name", "output", "prelude",
         "root", "serve", "serves", "services", "setup", "skip", "synopsis", "timeout", "unordered", "unprivileged",
         "values", "venv"}


class Block:
    def __init__(self, doc, shown, line, lang, lines, directives):
        self.doc, self.shown, self.line, self.lang, self.lines = doc, shown, line, lang, lines
        self.directives = directives  # [(key, value)] in order
        self.kind = {"console": "console", "bash": "bash", "sh": "bash", "shell": "bash",
                     "swift": "swift", "python": "python", "nginx": "nginx"}.get(lang)
        if lang == "" and any(l.strip() for l in lines):
            first = next(l for l in lines if l.strip())
            if first.startswith("$ "):
                self.kind = "console"
        self.chain = None

    def get(self, key, default=None):
        for k, v in self.directives:
            if k == key:
                return v
        return default

    def has(self, key):
        return any(k == key for k, _ in self.directives)

    @property
    def where(self):
        return f"{self.shown}:{self.line}"

    def commands(self):
        """[(line, command, expected lines)] of a console transcript."""
        entries, i = [], 0
        while i < len(self.lines):
            line = self.lines[i]
            if line.startswith("$ "):
                number, command = self.line + 1 + i, line[2:]
                while command.endswith("\\") and i + 1 < len(self.lines):
                    i += 1
                    command += "\n" + self.lines[i]
                entries.append((number, command, []))
            elif entries:
                entries[-1][2].append(line)
            elif line.strip():
                raise ValueError(f"{self.shown}:{self.line + 1 + i}: text before the first command")
            i += 1
        for _, _, expected in entries:
            while expected and not expected[-1].strip():
                expected.pop()
        return entries


def parse_directives(text, where):
    out = []
    for token in shlex.split(text):
        key, _, value = token.partition("=")
        if key not in KNOWN:
            raise ValueError(f"{where}: unknown sample directive {key!r} (known: {', '.join(sorted(KNOWN))})")
        if key == "skip" and not value.strip():
            raise ValueError(f"{where}: skip needs its reason: skip=\"…\"")
        out.append((key, value))
    return out


def read_blocks(path, shown):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, lang, start = len(m.group(1)), m.group(2), i
        body = []
        i += 1
        while i < len(lines) and lines[i].strip() != "```":
            body.append(lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i])
            i += 1
        # directives: HTML comments stacked right above the fence
        directives, j = [], start - 1
        comments = []
        while j >= 0 and lines[j].rstrip().endswith("-->"):
            k = j
            while k >= 0 and "<!--" not in lines[k]:
                k -= 1
            if k < 0:
                break
            comments.insert(0, "\n".join(lines[k:j + 1]))
            j = k - 1
        for comment in comments:
            m2 = DIRECTIVE.search(comment)
            if m2:
                directives += parse_directives(m2.group(1), f"{shown}:{start + 1}")
        blocks.append(Block(path, shown, start + 1, lang, body, directives))
        i += 1
    return blocks


# ----------------------------------------------------------------------------------------------
# The local PostgreSQL and S3 store (scripts/services), shared by the `services` blocks

class Services:
    def __init__(self, root, log):
        self.dir = os.path.join(root, "services")
        self.lock = threading.Lock()
        self.ports = None
        self.log = log
        self.started = False

    def ensure(self):
        with self.lock:
            os.makedirs(self.dir, exist_ok=True)
            os.chmod(os.path.dirname(self.dir), 0o755)  # postgres must enter it
            os.chmod(self.dir, 0o755)
            if self.ports is None:
                self.ports = {"pg": free_port(), "s3": free_port()}
            self.started = True
            errors = []

            def start(name, script):  # both at once (each is idempotent: a running one is kept)
                result = subprocess.run([os.path.join(ROOT, "scripts/services", script), "start",
                                         os.path.join(self.dir, name), str(self.ports[name])],
                                        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=180)
                self.log(f"services: {script} start: exit {result.returncode}\n{result.stderr}")
                if result.returncode != 0:
                    errors.append(f"{script} start failed: {result.stderr.strip()[-400:]}")
            starters = [threading.Thread(target=start, args=pair) for pair in (("pg", "postgres.sh"), ("s3", "s3.sh"))]
            for starter in starters:
                starter.start()
            for starter in starters:
                starter.join()
            if errors:
                raise RuntimeError("; ".join(errors))

    def stop(self):
        if not self.started:
            return
        for name, script in (("s3", "s3.sh"), ("pg", "postgres.sh")):
            subprocess.run([os.path.join(ROOT, "scripts/services", script), "stop", os.path.join(self.dir, name)],
                           stdin=subprocess.DEVNULL, capture_output=True, timeout=60)


# ----------------------------------------------------------------------------------------------
# One bash session: a chain of blocks

class Failure(Exception):
    pass


class Session:
    live = set()
    live_lock = threading.Lock()

    def __init__(self, run, name, unprivileged=False):
        self.run = run
        self.name = name
        self.sandbox = tempfile.mkdtemp(prefix="doc-", dir="/tmp")
        self.shm = None
        self.ctl = os.path.join(run.out, "sessions", name)
        os.makedirs(self.ctl, exist_ok=True)
        self.ports = {}    # doc port -> real port
        self.values = {}   # doc value -> real value
        self.jobs = []     # [(output file, command)] of jobs started with &
        self.cleanups = []
        self.closing = threading.Lock()
        self.closed = False
        self.count = 0
        self.linked = False
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("ATTACH_", "S3_", "AWS_", "PG"))
               and k not in ("CDPATH", "BASH_ENV", "ENV", "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")}
        env.update(HOME=self.sandbox, PATH=run.bin + os.pathsep + env.get("PATH", "/usr/bin:/bin"),
                   TZ="UTC", LANG="C.UTF-8", LC_ALL="C.UTF-8", TERM="dumb", CORPUS=run.corpus, PWD=self.sandbox,
                   SAMPLES=os.path.join(ROOT, "Tests/e2e"))
        self.env = env
        shell = ["bash", "--norc", "--noprofile"]
        if unprivileged and os.geteuid() == 0:
            shell = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"] + shell
        self.shell = subprocess.Popen(shell, cwd=self.sandbox, env=env,
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=open(os.path.join(self.ctl, "shell.stderr"), "w"),
                                      start_new_session=True)
        with Session.live_lock:
            Session.live.add(self)
        self.buffer = b""

    # -- running one command ------------------------------------------------------------------
    def execute(self, command, timeout=COMMAND_TIMEOUT):
        """Runs a command in the session; returns (status, output text, output file)."""
        self.count += 1
        n = self.count
        script, out = os.path.join(self.ctl, f"cmd-{n}.sh"), os.path.join(self.ctl, f"out-{n}")
        with open(script, "w") as f:
            f.write(command + "\n")
        line = (f"{{ . {shlex.quote(script)}\n}} > {shlex.quote(out)} 2>&1 < /dev/null; "
                f"printf '\\n__docs_samples__ {n} %s\\n' \"$?\"\n")
        try:
            self.shell.stdin.write(line.encode())
            self.shell.stdin.flush()
        except BrokenPipeError:
            raise Failure("the session's shell has ended (a command ran `exit`?)")
        deadline = time.monotonic() + timeout
        marker = re.compile(rb"__docs_samples__ " + str(n).encode() + rb" (\d+)\n")
        sel = selectors.DefaultSelector()
        sel.register(self.shell.stdout, selectors.EVENT_READ)
        try:
            while True:
                m = marker.search(self.buffer)
                if m:
                    self.buffer = self.buffer[m.end():]
                    status = int(m.group(1))
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    raise Failure(f"timed out after {timeout} s: {command}\n{self.read(out)[-2000:]}")
                if sel.select(min(left, 1.0)):
                    chunk = os.read(self.shell.stdout.fileno(), 65536)
                    if not chunk:
                        raise Failure(f"the session's shell ended while running: {command}")
                    self.buffer += chunk
        finally:
            sel.close()
        return status, self.read(out), out

    def read(self, path, offset=0):
        try:
            with open(path, "rb") as f:
                f.seek(offset)
                data = f.read()
        except FileNotFoundError:
            return ""
        return self.real_to_doc(data.decode("utf-8", "replace"))

    def real_to_doc(self, text):
        if self.shm:
            text = text.replace(self.shm + "/", "/dev/shm/")
        for path in (self.sandbox, os.path.realpath(self.sandbox)):
            text = text.replace(path, "/tmp/sandbox")
        for doc, real in self.ports.items():
            text = re.sub(rf"(?<![0-9A-Za-z.]){real}(?![0-9A-Za-z])", str(doc), text)  # not inside a hash
        return text.replace("\r\n", "\n").replace("\r", "\n")

    # -- what the doc names, made real ---------------------------------------------------------
    def doc_to_real(self, text):
        for pattern in PORT_PATTERNS:
            for port in pattern.findall(text):
                self.map_port(int(port))
        services = self.run.services.ports if self.linked and self.run.services.ports else {}
        for name, doc in SERVICE_PORTS.items():
            if name in services:
                self.ports.setdefault(doc, services[name])
        for doc, real in self.ports.items():
            for pattern in PORT_PATTERNS:
                text = pattern.sub(lambda m: str(real) if m.group(1) == str(doc) else m.group(1), text)
            if doc in SERVICE_PORTS.values():
                text = re.sub(rf"(?<![0-9A-Za-z.:/]){doc}(?![0-9A-Za-z])", str(real), text)
        if "/dev/shm/" in text:
            if self.shm is None:
                self.shm = tempfile.mkdtemp(prefix="doc-", dir="/dev/shm")
            text = re.sub(r"/dev/shm/(?=[\w.-])", self.shm + "/", text)
        return self.substitute_values(text)

    def map_port(self, port):
        if port >= 1024 and port not in self.ports:
            self.ports[port] = free_port()

    def substitute_values(self, text):
        if not self.values:
            return text

        def real(m):
            word = m.group(0)
            if word in self.values:
                return self.values[word]
            if len(word) >= 6:
                for doc, value in self.values.items():
                    if doc.startswith(word) and len(value) >= len(word):
                        return value[:len(word)]
            return word
        return re.sub(r"(?<![0-9A-Za-z])(?:" + UUID + r"|[0-9a-f]{6,}|\d{10,})(?![0-9A-Za-z])", real, text)

    def real_values_to_doc(self, text):
        back = {}
        for doc, real in self.values.items():
            back[real] = doc
            if re.fullmatch(UUID, real):
                back.setdefault(real[:8], doc[:8])
        if not back:
            return text
        return re.sub(r"(?<![0-9A-Za-z])(?:" + UUID + r"|[0-9a-f]{8,}|\d{10,})(?![0-9A-Za-z])",
                      lambda m: back.get(m.group(0), m.group(0)), text)

    def learn(self, expected, actual):
        e, a = as_json(expected), as_json(actual)
        if e is not None and a is not None:
            self.learn_json(e, a)
        else:
            self.learn_text(expected, actual)

    def learn_json(self, e, a):
        if isinstance(e, dict) and isinstance(a, dict):
            for key, value in e.items():
                if key in a:
                    self.learn_json(value, a[key])
                    continue
                other = next((k for k in a if k not in e and normalise(k) == normalise(key)), None)
                if other is not None:
                    self.learn_text(key, other)
                    self.learn_json(value, a[other])
        elif isinstance(e, list) and isinstance(a, list):
            for x, y in zip(e, a):
                self.learn_json(x, y)
        elif isinstance(e, str) and isinstance(a, str):
            self.learn_text(e, a)

    def learn_text(self, expected, actual):
        docs, reals = values_in(expected), values_in(actual)
        if len(docs) != len(reals) or [kind(d) for d in docs] != [kind(r) for r in reals]:
            docs = [d for d in docs if kind(d)[0] == "uuid"]
            reals = [r for r in reals if kind(r)[0] == "uuid"]
            if len(docs) != len(reals):
                return
        for doc, real in zip(docs, reals):
            if doc != real and (not doc.isdigit() or len(doc) >= 10):
                self.values[doc] = real

    # -- the checkout look-alike ---------------------------------------------------------------
    def link_checkout(self, services):
        if not self.linked:
            for name in ("scripts", "Makefile", "contrib"):
                target = os.path.join(ROOT, name)
                if os.path.exists(target) and not os.path.exists(os.path.join(self.sandbox, name)):
                    os.symlink(target, os.path.join(self.sandbox, name))
            os.makedirs(os.path.join(self.sandbox, ".cache"), exist_ok=True)
            os.symlink(self.run.corpus, os.path.join(self.sandbox, ".cache/corpus"))
            os.makedirs(os.path.join(self.sandbox, ".build/debug"), exist_ok=True)
            os.symlink(self.run.binary, os.path.join(self.sandbox, ".build/debug/attach"))
            self.linked = True
        if services:
            os.makedirs(os.path.join(self.sandbox, ".build/services"), exist_ok=True)
            for name in ("pg", "s3"):
                link = os.path.join(self.sandbox, ".build/services", name)
                if not os.path.lexists(link):
                    os.symlink(os.path.join(self.run.services.dir, name), link)

    # -- the end -----------------------------------------------------------------------------
    def close(self):
        """Stops everything the session started (once; a second caller waits for the first)."""
        with self.closing:
            if self.closed:
                return []
            left = self.stop_all()
            self.closed = True
            return left

    def stop_all(self):
        for command in self.cleanups:  # in a shell of their own: the session's may be busy or gone
            try:
                subprocess.run(["bash", "-c", command], cwd=self.sandbox, env=self.env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=15)
            except subprocess.TimeoutExpired:
                pass
        # the shell leads a process group of its own (setsid): it and every job it started; 10 s
        # for a script's trap to stop what it started, then SIGKILL
        for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 2.0)):
            try:
                os.killpg(self.shell.pid, sig)
            except ProcessLookupError:
                break
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline:
                self.shell.poll()  # reap the shell, or the group never looks empty
                try:
                    os.killpg(self.shell.pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.05)
            else:
                continue
            break
        try:
            self.shell.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        left = self.leftovers()
        with Session.live_lock:
            Session.live.discard(self)
        if not self.run.keep:
            shutil.rmtree(self.sandbox, ignore_errors=True)
            if self.shm:
                shutil.rmtree(self.shm, ignore_errors=True)
        return left

    def leftovers(self):
        """Processes still working in the sandbox (a daemon that left the session): stopped, and
        named so the failure shows."""
        left = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                cwd = os.readlink(f"/proc/{pid}/cwd")
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    cmdline = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
            except OSError:
                continue
            if cwd == self.sandbox or cwd.startswith(self.sandbox + "/") or self.sandbox in cmdline:
                left.append(f"{pid} {cmdline}")
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except OSError:
                    pass
        return left


# ----------------------------------------------------------------------------------------------
# Running the blocks

class Result:
    def __init__(self, block, status, detail="", commands=0):
        self.block, self.status, self.detail, self.commands = block, status, detail, commands


class Runner:
    def __init__(self, args):
        self.binary = os.path.abspath(args.binary)
        self.corpus = os.path.abspath(args.corpus)
        self.out = os.path.abspath(args.output)
        self.keep = args.keep
        self.record = args.record
        self.root = tempfile.mkdtemp(prefix="docs-samples.", dir="/tmp")
        self.bin = os.path.join(self.root, "bin")
        os.makedirs(self.bin)
        os.symlink(self.binary, os.path.join(self.bin, "attach"))
        if os.geteuid() == 0:  # `sudo` in a sample: root already, so it runs the command as it is
            with open(os.path.join(self.bin, "sudo"), "w") as f:
                f.write('#!/bin/sh\nexec "$@"\n')
            os.chmod(os.path.join(self.bin, "sudo"), 0o755)
        shutil.rmtree(os.path.join(self.out, "sessions"), ignore_errors=True)
        os.makedirs(self.out, exist_ok=True)
        self.logfile = open(os.path.join(self.out, "docs-samples.log"), "w")
        self.log_lock = threading.Lock()
        self.services = Services(self.root, self.log)
        self.sessions = 0
        self.sessions_lock = threading.Lock()
        self.closers = []
        self.closers_lock = threading.Lock()
        self.stopping = threading.Event()

    def log(self, text):
        with self.log_lock:
            self.logfile.write(text.rstrip("\n") + "\n")
            self.logfile.flush()

    def new_session(self, block):
        if self.stopping.is_set():
            raise Failure("interrupted")
        with self.sessions_lock:
            self.sessions += 1
            n = self.sessions
        name = f"{n:03d}-{re.sub(r'[^A-Za-z0-9]+', '-', block.shown)}-{block.line}"
        return Session(self, name, unprivileged=block.has("unprivileged"))

    # -- a chain of blocks in one session ----------------------------------------------------
    def run_chain(self, chain):
        results, session, failed = [], None, None
        try:
            for block in chain:
                if block.has("root") and os.geteuid() != 0:
                    results.append(Result(block, "skip", "needs root (run as root, `sudo` in a sample runs its command)"))
                    continue
                if failed:
                    results.append(Result(block, "FAIL", f"not run: {failed.where} failed before it in its chain"))
                    continue
                if self.stopping.is_set():
                    results.append(Result(block, "FAIL", "not run: interrupted"))
                    continue
                if session is None:
                    try:
                        session = self.new_session(block)
                    except Failure as failure:
                        results.append(Result(block, "FAIL", str(failure)))
                        continue
                started = time.monotonic()
                try:
                    count = self.run_block(block, session)
                    results.append(Result(block, "ok", f"{time.monotonic() - started:.1f} s", count))
                except Failure as failure:
                    failed = block
                    results.append(Result(block, "FAIL", str(failure)))
                self.log(f"== {block.where}: {results[-1].status} {results[-1].detail}")
        finally:
            if session is not None:
                # stopping servers takes a moment (they drain): done beside the next chain
                closer = threading.Thread(target=self.close_session, args=(session, results))
                closer.start()
                with self.closers_lock:
                    self.closers.append(closer)
        return results

    def close_session(self, session, results):
        closing = time.monotonic()
        left = session.close()
        self.log(f"== {session.name}: closed in {time.monotonic() - closing:.1f} s")
        if left:
            last = results[-1]
            if last.status == "ok":
                last.status = "FAIL"
            last.detail += "\n  processes left behind (killed): " + "; ".join(left)

    def wait_for_closers(self):
        while True:
            with self.closers_lock:
                pending = [c for c in self.closers if c.is_alive()]
            if not pending:
                return
            for closer in pending:
                closer.join()

    def run_block(self, block, session):
        self.log(f"\n== {block.where} ({block.kind}) {block.directives}")
        timeout = int(block.get("timeout", COMMAND_TIMEOUT))
        if block.has("services"):
            try:
                self.services.ensure()
            except (RuntimeError, subprocess.TimeoutExpired) as error:
                raise Failure(f"the local services did not start: {error}")
            session.link_checkout(services=True)
        elif block.has("checkout"):
            session.link_checkout(services=False)
        for key, value in block.directives:
            if key == "cleanup":
                session.cleanups.append(session.doc_to_real(value))
            elif key == "setup":
                status, output, _ = session.execute(session.doc_to_real(value), timeout=120)
                self.log(f"-- setup: {value}\n{output}-- exit {status}")
                if status != 0:
                    raise Failure(f"setup exited {status}: {value}\n{indent(output)}")
            elif key == "serve":
                self.start_server(block, session, value)
            elif key == "values":
                for pair in value.split():
                    doc, _, expression = pair.partition("=")
                    status, output, _ = session.execute(f"printf %s {expression}")
                    if status != 0 or not output:
                        raise Failure(f"values: {expression} is empty")
                    session.values[doc] = output
                    if re.fullmatch(UUID, doc):
                        session.values.setdefault(doc[:8], output[:8])
        if block.kind == "console":
            if block.has("synopsis"):
                return self.check_synopsis(block, session)
            return self.run_transcript(block, session, timeout)
        if block.kind == "bash":
            script = os.path.join(session.ctl, f"block-{block.line}.sh")
            with open(script, "w") as f:
                f.write(session.doc_to_real("\n".join(block.lines)) + "\n")
            if block.has("serves"):
                log = os.path.join(session.ctl, f"block-{block.line}.log")
                session.execute(f"( . {shlex.quote(script)} ) > {shlex.quote(log)} 2>&1 & echo $! > {shlex.quote(log)}.pid")
                deadline = time.monotonic() + 15
                while time.monotonic() < deadline:
                    output = session.read(log)
                    if "serving " in output:
                        self.log(f"-- bash block (serves)\n{output}")
                        return 1
                    if not os.path.exists(f"/proc/{open(log + '.pid').read().strip()}"):
                        raise Failure(f"the server ended instead of serving:\n{indent(output)}")
                    time.sleep(0.05)
                raise Failure(f"the server did not start within 15 s:\n{indent(session.read(log))}")
            status, output, _ = session.execute(f"( set -e; . {shlex.quote(script)} )", timeout)
            self.log(f"-- bash block\n{output}-- exit {status}")
            self.check_status(block, status, "the script", output)
            return 1
        if block.kind == "python":
            script = os.path.join(session.ctl, f"block-{block.line}.py")
            with open(script, "w") as f:
                f.write(block.get("prelude", "") + "\n" + session.doc_to_real("\n".join(block.lines)) + "\n")
            interpreter = "python3"
            if block.get("venv"):
                folder, package, module = block.get("venv").split()
                folder = os.path.join(ROOT, folder)
                result = subprocess.run(["bash", "-c", '. "$0" && ensure_venv "$1" "$2" "$3"',
                                         os.path.join(ROOT, "Tests/e2e/python-venv.sh"), folder, package, module],
                                        capture_output=True, text=True, timeout=300)
                if result.returncode != 0:
                    raise Failure(f"could not make {folder} with {package}:\n{indent(result.stdout + result.stderr)}")
                interpreter = os.path.join(folder, "bin/python")
            status, output, _ = session.execute(f"{shlex.quote(interpreter)} {shlex.quote(script)}", timeout)
            self.log(f"-- python block\n{output}-- exit {status}")
            self.check_status(block, status, "the script", output)
            return 1
        raise Failure(f"no way to run a {block.kind} block")

    def start_server(self, block, session, value):
        words = value.split(None, 1)
        doc_port = int(words[0])
        args = words[1] if len(words) > 1 else "--store attach-data"
        session.map_port(doc_port)
        port = session.ports[doc_port]
        log = os.path.join(session.ctl, f"serve-{doc_port}.log")
        command = f"attach serve --port {port} {session.doc_to_real(args)} > {shlex.quote(log)} 2>&1 &"
        status, output, _ = session.execute(command)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if "serving " in session.read(log):
                return
            time.sleep(0.05)
        raise Failure(f"serve {value}: the server did not start:\n{indent(session.read(log))}")

    def check_status(self, block, status, what, output):
        allowed = {0} | {int(s) for s in block.get("exit", "").split(",") if s.strip()}
        if status not in allowed:
            raise Failure(f"{what} exited {status}" + (f" (allowed: {sorted(allowed)})" if len(allowed) > 1 else "")
                          + f"\n{indent(output)}")

    def check_synopsis(self, block, session):
        """Every --option of the synopsis is one the command's help names, and a default the
        synopsis shows (`[--port 8080]`, not a placeholder such as `[--token T]`) is the help's."""
        status, output, _ = session.execute(block.get("synopsis"))
        if status != 0:
            raise Failure(f"synopsis: {block.get('synopsis')} exited {status}\n{indent(output)}")
        entries, name = {}, None
        for line in output.split("\n"):  # the help's option entries, by name
            m = re.match(r"  (--[a-z][a-z-]*)", line)
            if m:
                name = m.group(1)
                entries[name] = ""
            if name:
                entries[name] += " " + line.strip()
        text = "\n".join(block.lines)
        problems = [f"{o} is no option of it" for o in dict.fromkeys(re.findall(r"--[a-z][a-z-]*", text))
                    if o not in entries]
        for option, value in re.findall(r"\[(--[a-z][a-z-]*) ([^\]\sA-Z][^\]\s]*)\]", text):
            default = re.search(r"\(default: ([^)]*)\)", entries.get(option, ""))
            if default and not same_value(default.group(1).strip(), value):
                problems.append(f"{option} shows {value}, the default is {default.group(1).strip()}")
        if problems:
            raise Failure(f"synopsis: against {block.get('synopsis')}: " + "; ".join(problems))
        return 1

    def run_transcript(self, block, session, timeout):
        commands = block.commands()
        transcript = []  # the real run, in the doc's values: OUTPUT_DIR/transcripts/, to update a doc from
        try:
            return self.run_commands(block, session, timeout, commands, transcript)
        finally:
            name = re.sub(r"[^A-Za-z0-9]+", "-", block.shown) + f"-{block.line}.txt"
            os.makedirs(os.path.join(self.out, "transcripts"), exist_ok=True)
            with open(os.path.join(self.out, "transcripts", name), "w") as f:
                for command, output in transcript:
                    f.write("$ " + command + "\n" + "".join(l + "\n" for l in split_lines(session.real_values_to_doc(output))))

    def run_commands(self, block, session, timeout, commands, transcript):
        any_output = block.get("output") == "any"
        json_subset = block.get("json") == "subset"
        headers = block.get("headers") == "subset"
        eventually = block.has("eventually") and not self.record
        if block.has("unordered"):
            def matcher(expected, actual, skippable, json_subset):
                return match_unordered(expected, actual, skippable, json_subset, session.values)
        else:
            matcher = match
        mismatches = []
        for number, command, expected in commands:
            real = session.doc_to_real(command)
            background = re.search(r"(?<![&|])&\s*(#.*)?$", command.strip()) is not None
            offsets = [(path, os.path.getsize(path) if os.path.exists(path) else 0) for path, _ in session.jobs]
            status, output, out = session.execute(real, timeout)
            self.log(f"-- {block.shown}:{number} $ {real}\n{output}-- exit {status}")
            transcript.append((command, output))
            if background:
                session.jobs.append((out, command))
                self.wait_for_job(block, session, number, command, expected, out, any_output, json_subset)
                continue
            self.check_status(block, status, f"line {number}: `{command}`", output)
            if any_output:
                continue
            actual = split_lines(output)
            skippable = [headers and is_header(line) for line in actual]
            pairs = matcher(expected, actual, skippable, json_subset)
            # lines the command did not print itself may come from a job started with & (a
            # server's log, a held request's answer), as they would on a terminal: wait for them
            if pairs is None and session.jobs and any(
                    not is_line_wildcard(e) and not any(line_matches(e, a, json_subset) for a in actual)
                    for e in expected):
                deadline = time.monotonic() + (2 if self.record else max(BACKGROUND_WAIT, timeout))
                own, own_skippable = actual, skippable
                while pairs is None and time.monotonic() < deadline:
                    extra = []
                    for path, offset in offsets:
                        extra += split_lines(session.read(path, offset))
                    for path, _ in session.jobs[len(offsets):]:
                        extra += split_lines(session.read(path))
                    actual, skippable = own + extra, own_skippable + [True] * len(extra)
                    pairs = matcher(expected, actual, skippable, json_subset)
                    if pairs is None:
                        time.sleep(0.2)
            # `eventually`: a state that settles, asked again until it has
            if pairs is None and eventually:
                deadline = time.monotonic() + BACKGROUND_WAIT
                while pairs is None and time.monotonic() < deadline:
                    time.sleep(0.5)
                    status, output, out = session.execute(real, timeout)
                    self.log(f"-- again: {block.shown}:{number} $ {real}\n{output}-- exit {status}")
                    transcript[-1] = (command, output)
                    self.check_status(block, status, f"line {number}: `{command}`", output)
                    actual = split_lines(output)
                    skippable = [headers and is_header(line) for line in actual]
                    pairs = matcher(expected, actual, skippable, json_subset)
            if pairs is None:
                message = self.mismatch(number, command, expected, actual, skippable, json_subset)
                if not self.record:
                    raise Failure(message)
                mismatches.append(message)
                mine = [line for line, skip in zip(actual, skippable) if not skip]
                pairs = [(i, i) for i in range(min(len(expected), len(mine)))]
                actual = mine
            for i, j in pairs:
                session.learn(expected[i], actual[j])
        if mismatches:
            raise Failure("\n".join(mismatches))
        return len(commands)

    def wait_for_job(self, block, session, number, command, expected, out, any_output, json_subset):
        """A job started with &: the lines the doc shows for it must appear among its output."""
        server = re.search(r"\battach serve\b", command) is not None
        if any_output:
            expected = []
        deadline = time.monotonic() + BACKGROUND_WAIT
        while True:
            actual = split_lines(session.read(out))
            ready = not server or any("serving " in line for line in actual) or (
                "Error" in "".join(actual) or "attach:" in "".join(actual))
            pairs = match(expected, actual, [True] * len(actual), json_subset)
            if ready and pairs is not None:
                for i, j in pairs:
                    session.learn(expected[i], actual[j])
                return
            if time.monotonic() > deadline:
                what = "did not start" if not ready else "never printed what the doc shows"
                raise Failure(f"line {number}: `{command}` {what} within {BACKGROUND_WAIT} s\n"
                              + self.mismatch(number, command, expected, actual, [True] * len(actual), json_subset))
            time.sleep(0.1)

    def mismatch(self, number, command, expected, actual, skippable, json_subset):
        i, got = first_difference(expected, actual, skippable, json_subset)
        where = (f"first difference at the doc's output line {i + 1}:\n"
                 f"    expected: {expected[i] if i < len(expected) else '(nothing more)'}\n"
                 f"    actual:   {got if got is not None else '(nothing more)'}\n"
                 f"    expected, normalised: {normalise(expected[i]) if i < len(expected) else ''}\n"
                 f"    actual, normalised:   {normalise(got) if got is not None else ''}\n")
        shown = [("· " if skip else "") + line for line, skip in zip(actual, skippable)]
        return (f"line {number}: `{command}`: the output differs from the doc's\n  {where}"
                f"  expected (doc):\n{indent(chr(10).join(expected), 4, 40)}\n"
                f"  actual (· a line the doc may leave out: a job's started with &, a header):\n"
                f"{indent(chr(10).join(shown), 4, 40)}")

    # -- blocks that are not transcripts -------------------------------------------------------
    def check_swift(self, block):
        def code_lines(text, doc_comment=False):
            out = []
            for line in text.split("\n"):
                line = line.strip()
                if doc_comment:
                    if not line.startswith("///"):
                        out.append("")
                        continue
                    line = line[3:].strip()
                line = re.sub(r"(?:^|(?<=\s))//.*$", "", line).strip()
                if line:
                    out.append(line)
            return out

        sample = code_lines("\n".join(block.lines))
        joined = "\n".join(sample)
        found = []
        for base, exts in (("Tests", (".swift",)), ("Sources", (".md", ".swift"))):
            for dirpath, _, files in os.walk(os.path.join(ROOT, base)):
                for name in files:
                    if not name.endswith(exts):
                        continue
                    path = os.path.join(dirpath, name)
                    if base == "Sources" and name.endswith(".md") and ".docc" not in path:
                        continue
                    with open(path, encoding="utf-8", errors="replace") as f:
                        text = f.read()
                    doc_comment = base == "Sources" and name.endswith(".swift")
                    lines = [l for l in code_lines(text, doc_comment) if l]
                    if joined in "\n".join(lines):
                        found.append(os.path.relpath(path, ROOT))
        tests = [p for p in found if p.startswith("Tests/")]
        if tests:
            return f"compiled by {tests[0]}"
        if found:
            return f"appears in {found[0]}; no test compiles it"
        raise Failure("this Swift sample appears in no test, DocC catalog or doc comment; add it to a test "
                      "(or mark it skip=\"…\" with the reason)")

    def check_nginx(self, block):
        work = tempfile.mkdtemp(prefix="nginx-", dir=self.root)
        conf = os.path.join(work, "nginx.conf")
        with open(conf, "w") as f:
            f.write(f"pid {work}/nginx.pid;\nerror_log {work}/error.log;\nevents {{}}\n"
                    f"http {{\naccess_log off;\nclient_body_temp_path {work};\nproxy_temp_path {work};\n"
                    f"fastcgi_temp_path {work};\nuwsgi_temp_path {work};\nscgi_temp_path {work};\n"
                    + "\n".join(block.lines) + "\n}\n")
        result = subprocess.run(["nginx", "-t", "-q", "-p", work, "-c", conf, "-e", os.path.join(work, "error.log")],
                                capture_output=True, text=True, timeout=30)
        if result.returncode != 0:
            raise Failure("nginx -t refuses it:\n" + indent(result.stderr))
        return "nginx -t accepts it"


def same_value(a, b):
    """60 and 60.0 are the same default."""
    try:
        return float(a) == float(b)
    except ValueError:
        return a == b


def split_lines(text):
    lines = text.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def is_header(line):
    return re.match(r"^[A-Za-z][A-Za-z0-9-]*: ", line) is not None


def indent(text, by=4, limit=60):
    lines = text.rstrip("\n").split("\n")
    if len(lines) > limit:
        lines = lines[:limit] + [f"… ({len(lines) - limit} more lines)"]
    return "\n".join(" " * by + line for line in lines)


# ----------------------------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("binary")
    parser.add_argument("corpus")
    parser.add_argument("output")
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--docs", nargs="+")
    parser.add_argument("--jobs", type=int, default=3)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    if not os.access(args.binary, os.X_OK):
        sys.exit(f"docs-samples: {args.binary} is not an executable")
    if not os.path.isdir(os.path.join(args.corpus, "fifty")):
        sys.exit(f"docs-samples: {args.corpus} is not the corpus (make corpus builds it)")
    missing = [TOOLS[tool] for tool in TOOLS if shutil.which(tool) is None and not os.path.exists(f"/usr/sbin/{tool}")]
    if missing:  # as the other scripts do: apt-get as root, else the command to run
        result = subprocess.run(["bash", "-c", '. "$0" && apt_install "tools the docs samples use" "$@"',
                                 os.path.join(ROOT, "scripts/apt-lib.sh"), *missing])
        if result.returncode != 0:
            sys.exit(f"docs-samples: missing tools the samples use: {', '.join(missing)}")

    if args.docs:
        docs = [(os.path.abspath(p), os.path.relpath(os.path.abspath(p), ROOT)
                 if os.path.abspath(p).startswith(ROOT + "/") else p) for p in args.docs]
    else:
        internals = sorted(f"docs/internals/{n}" for n in os.listdir(os.path.join(ROOT, "docs/internals"))
                           if n.endswith(".md"))
        docs = [(os.path.join(ROOT, p), p) for p in DEFAULT_DOCS + internals]
    only_lines = {}
    if args.only:
        for item in args.only:
            name, _, line = item.partition(":")
            only_lines.setdefault(os.path.normpath(name), set()).update([int(line)] if line else [])
        docs = [(p, shown) for p, shown in docs if os.path.normpath(shown) in only_lines]
        if not docs:
            sys.exit(f"docs-samples: no doc named {', '.join(args.only)}")

    started = time.monotonic()
    blocks = []
    try:
        for path, shown in docs:
            blocks += [b for b in read_blocks(path, shown) if b.kind]
        for block in blocks:
            if block.kind == "console":
                block.commands()  # parse errors now, not midway
    except ValueError as error:
        sys.exit(f"docs-samples: {error}")

    # chains: a block with `continues` joins the previous sample of its doc
    chains, previous, named = [], {}, {}
    for block in blocks:
        if block.has("skip") or block.kind in ("swift", "nginx"):
            continue
        if block.has("continues"):
            name = block.get("continues")
            before = named.get((block.doc, name)) if name else previous.get(block.doc)
            if before is None:
                sys.exit(f"docs-samples: {block.where}: `continues{'=' + name if name else ''}` "
                         f"but no sample {'named so ' if name else ''}before it")
            block.chain = before.chain
            block.chain.append(block)
        else:
            block.chain = [block]
            chains.append(block.chain)
        previous[block.doc] = block
        if block.get("name"):
            named[(block.doc, block.get("name"))] = block
    if any(only_lines.values()):
        def chosen(block):
            lines = only_lines.get(os.path.normpath(block.shown))
            return not lines or block.line in lines
        keep = set()
        for block in blocks:
            if chosen(block):
                keep.add(id(block))
                if block.chain:
                    keep.update(id(b) for b in block.chain[:block.chain.index(block)])
        blocks = [b for b in blocks if id(b) in keep]
        if not blocks:
            sys.exit(f"docs-samples: no sample's fence is on the line {', '.join(args.only)} names")
        chains = [[b for b in c if id(b) in keep] for c in chains]
        chains = [c for c in chains if c]

    runner = Runner(args)
    results = {}

    def interrupted(signum, frame):
        quiet()  # once: the cleanup that follows is not to be cut short
        raise KeyboardInterrupt

    def quiet():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)

    signal.signal(signal.SIGINT, interrupted)  # also when started in the background, which ignores it
    signal.signal(signal.SIGTERM, interrupted)
    pool = None
    try:
        for block in blocks:
            if block.has("skip"):
                results[id(block)] = Result(block, "skip", block.get("skip"))
            elif block.kind == "swift":
                try:
                    results[id(block)] = Result(block, "ok", runner.check_swift(block), 1)
                except Failure as failure:
                    results[id(block)] = Result(block, "FAIL", str(failure))
            elif block.kind == "nginx":
                try:
                    results[id(block)] = Result(block, "ok", runner.check_nginx(block), 1)
                except (Failure, OSError, subprocess.TimeoutExpired) as failure:
                    results[id(block)] = Result(block, "FAIL", str(failure))
        # the chains on the shared services run one after the other, started first (the longest
        # lane); then the checkout chains (scripts of the repository, the slowest), then the rest
        serial = sorted((c for c in chains if any(b.has("services") for b in c)),
                        key=lambda c: any(b.get("services") == "last" for b in c))
        parallel = sorted((c for c in chains if c not in serial), key=lambda c: not any(b.has("checkout") for b in c))
        lane_results = []
        lane = threading.Thread(target=lambda: lane_results.extend(r for c in serial for r in runner.run_chain(c)))
        lane.start()  # a thread of its own: it waits on the services much of the time
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs))
        futures = [pool.submit(runner.run_chain, c) for c in parallel]
        for future in futures:
            for result in future.result():
                results[id(result.block)] = result
        pool.shutdown()
        while lane.is_alive():
            lane.join(0.5)
        for result in lane_results:
            results[id(result.block)] = result
        runner.wait_for_closers()
    except KeyboardInterrupt:
        print("docs-samples: interrupted; stopping what the samples started", file=sys.stderr)
        runner.stopping.set()
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
        quiet_since = time.monotonic()
        while time.monotonic() - quiet_since < 1.0:  # until no chain has started a session for a second
            with Session.live_lock:
                live = list(Session.live)
            for session in live:
                session.close()
                quiet_since = time.monotonic()
            time.sleep(0.1)
        runner.services.stop()
        if not args.keep:
            shutil.rmtree(runner.root, ignore_errors=True)
        os._exit(130)  # the workers notice their sessions are gone; nothing to wait for
    finally:
        quiet()
        runner.services.stop()
        if not args.keep:
            shutil.rmtree(runner.root, ignore_errors=True)

    counts = {"ok": 0, "skip": 0, "FAIL": 0}
    for block in blocks:
        result = results[id(block)]
        counts[result.status] += 1
        if result.status == "ok":
            detail = f"{result.commands} command{'s' if result.commands != 1 else ''}" if block.kind == "console" \
                else f"{block.kind}: {result.detail}" if block.kind in ("swift", "nginx") else f"{block.kind} script"
            if block.has("synopsis"):
                detail = f"synopsis, against {block.get('synopsis')}"
            line = f"ok {block.where} ({detail})"
        elif result.status == "skip":
            line = f"skip {block.where}: {result.detail}"
        else:
            line = f"FAIL {block.where}: {result.detail}"
        print(line)
        runner.log(line)
    skipped = [results[id(b)] for b in blocks if results[id(b)].status == "skip"]
    if skipped:
        print(f"skipped ({len(skipped)}):")
        for result in skipped:
            print(f"  {result.block.where}: {result.detail}")
    summary = (f"docs-samples: {counts['ok']} passed, {counts['skip']} skipped, {counts['FAIL']} failed "
               f"({time.monotonic() - started:.0f} s; log: {os.path.relpath(runner.logfile.name)})")
    print(summary)
    runner.log(summary)
    sys.exit(1 if counts["FAIL"] else 0)


if __name__ == "__main__":
    main()
