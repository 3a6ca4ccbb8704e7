"""The --trace-html page as test_html.py sees it: parsed into a tree
(html.parser), and loaded in headless chromium in a 1400x1000 window, where
a copy with a measuring script records the layout into the DOM (the failing
row or the cycle on the first screen, the writes column, sideways scroll)
and a screenshot is checked for the failing row's or the cycle's colour.
Without chromium the browser checks fail when CI is set and are skipped
otherwise. Set TMP (a directory for copies and profiles) before use.
"""
import html
import html.parser
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checks import check  # noqa: E402

TMP = None  # set by the caller
CHROMIUM_TIMEOUT = 120  # seconds per browser run; a loaded machine is slow
VOID = {"br", "meta", "hr", "img", "input", "link", "wbr", "col", "area", "base", "source"}


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children = tag, dict(attrs), parent, []

    def cls(self):
        return set((self.attrs.get("class") or "").split())

    def text(self):
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def all(self, pred):
        out = []
        for c in self.children:
            if isinstance(c, Node):
                if pred(c):
                    out.append(c)
                out.extend(c.all(pred))
        return out


class Tree(html.parser.HTMLParser):
    """The page as a tree, with every start tag and attribute seen."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", [], None)
        self.cur = self.root
        self.tags = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.tags.append((tag, dict(attrs)))
        self.cur.children.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self.cur.children.append(Node(tag, attrs, self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not self.root and n.tag != tag:
            n = n.parent
        if n is not self.root:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.children.append(data)

    def by_id(self, i):
        found = self.root.all(lambda n: n.attrs.get("id") == i)
        return found[0] if len(found) == 1 else None


def page(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def columns(tree):
    """{tid: thread name} of the trace table's header."""
    return {int(th.attrs["data-tid"]): th.text() for th in tree.root.all(
        lambda n: n.tag == "th" and "data-tid" in n.attrs)}


def rows(tree):
    """The rows of the trace table's body (a browser adds a tbody to the header's table)."""
    t = tree.by_id("trace")
    return t.all(lambda n: n.tag == "tr" and n.parent.tag == "tbody") if t else []


# ---- the browser -----------------------------------------------------------

def chromium():
    """The headless browser's command, or None (after saying why)."""
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe:
        return exe
    if os.environ.get("CI"):
        check(False, "chromium is installed (CI is set: the browser checks may not be skipped; "
                     "bootstrap.sh test installs it)")
    else:
        print("skip: chromium not found, the pages are not loaded in a browser "
              "(apt-get install chromium; with CI set this fails)")
    return None


def browser(exe, *args):
    """One headless run in a fresh profile: (exit status, stdout)."""
    profile = tempfile.mkdtemp(prefix="profile-", dir=TMP)
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
           "--disable-extensions", "--disable-dev-shm-usage", f"--user-data-dir={profile}"] + \
        list(args)
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                           timeout=CHROMIUM_TIMEOUT)
    except subprocess.TimeoutExpired:
        return None, ""
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    return p.returncode, p.stdout


def in_browser(exe, name, path, js, shot=False, fits=True):
    """The page as chromium builds it in a 1400x1000 window (--dump-dom):
    the same threads, steps, failing row or cycle and message, and the
    first screen as check_first_screen() wants it; with `shot`, a
    screenshot of 1400x1000 that shows the failing row or the cycle."""
    url = "file://" + path
    o, rc, dom = layout(exe, name, path)
    check(rc == 0 and "<table" in dom, f"{name}: chromium --dump-dom loads the page (exit {rc})")
    if rc != 0:
        return
    check_first_screen(name, o, js, True, fits)
    tree, orig = Tree(dom), Tree(page(path))
    check(columns(tree) == columns(orig), f"{name}: the browser's DOM has every thread's column")
    got = [tr.attrs.get("data-step") for tr in rows(tree)]
    lasso = "cycle_start" in js["errors"][0]
    check(got == [tr.attrs.get("data-step") for tr in rows(orig)] and
          sum(1 for tr in rows(tree) if "fail" in tr.cls()) == (0 if lasso else 1) and
          (tree.by_id("cycle") is not None) == lasso,
          f"{name}: the browser's DOM has every row and " +
          ("the cycle marker, no failing row" if lasso else "one failing row"))
    m = tree.by_id("message")
    check(m is not None and m.text().startswith(js["errors"][0]["message"]),
          f"{name}: the browser shows the error message as written")
    check(not any(t == "b" for t, _ in tree.tags), f"{name}: no markup from the model in the DOM")
    if not shot:
        return
    png = os.path.join(TMP, name + ".png")
    rc, _ = browser(exe, f"--screenshot={png}", "--window-size=1400,1000", url)
    data = open(png, "rb").read() if os.path.exists(png) else b""
    ok = rc == 0 and data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 24
    check(ok, f"{name}: chromium --screenshot writes a PNG (exit {rc}, {len(data)} bytes)")
    if ok:
        w, h = struct.unpack(">II", data[16:24])
        check((w, h) == (1400, 1000), f"{name}: the screenshot is 1400x1000, got {w}x{h}")
        # a blank 1400x1000 page compresses to a few KB; a drawn trace does not
        check(len(data) > 20000, f"{name}: the screenshot shows something ({len(data)} bytes)")
        # what the page is about is painted on the first screen: the failing
        # row's background (#fde8e8), or the cycle marker's (#f3eefe); the
        # page uses neither colour elsewhere
        colour, what = ((0xf3, 0xee, 0xfe), "the cycle marker") if lasso else \
            ((0xfd, 0xe8, 0xe8), "the failing row")
        n = png_count(data, colour)
        check(n is not None and n > 1500,
              f"{name}: the screenshot shows {what} without scrolling ({n} pixels of its colour)")
    if os.environ.get("HTML_SHOTS") and os.path.exists(png):
        os.makedirs(os.environ["HTML_SHOTS"], exist_ok=True)
        shutil.copy(png, os.path.join(os.environ["HTML_SHOTS"], name + ".png"))


def png_count(data, rgb):
    """Pixels of colour rgb in a PNG of 8-bit RGB or RGBA, not interlaced
    (chromium's screenshots), or None for another kind."""
    pos, idat, hdr = 8, b"", None
    while pos + 8 <= len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    if not hdr or hdr[2] != 8 or hdr[3] not in (2, 6) or hdr[6] != 0:
        return None
    w, h, bpp = hdr[0], hdr[1], 3 if hdr[3] == 2 else 4
    raw, stride = zlib.decompress(idat), w * bpp
    prev, count, want = bytearray(stride), 0, bytes(rgb)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 255
        elif f == 3:
            for i in range(stride):
                line[i] = (line[i] + ((line[i - bpp] if i >= bpp else 0) + prev[i]) // 2) & 255
        elif f == 4:
            for i in range(stride):
                a, b, c = line[i - bpp] if i >= bpp else 0, prev[i], prev[i - bpp] if i >= bpp else 0
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        count += sum(1 for i in range(0, stride, bpp) if line[i:i + 3] == want)
        prev = line
    return count


# Appended to a copy of a page: where the browser laid things out, into the
# DOM as JSON (<pre id="measure">) for --dump-dom. After the page's own
# script (it ran first, at the end of the body).
MEASURE = """<script>(function(){var d=document,p=d.querySelector('body.pane main');
function box(e){if(!e)return null;var r=e.getBoundingClientRect();return [r.left,r.top,r.right,r.bottom];}
function hit(e){if(!e)return false;var r=e.getBoundingClientRect(),
x=(Math.max(r.left,0)+Math.min(r.right,innerWidth))/2,y=(Math.max(r.top,0)+Math.min(r.bottom,innerHeight))/2,
h=d.elementFromPoint(x,y);return !!h&&(h===e||e.contains(h));}
var f=d.getElementById('fail'),c=d.getElementById('cycle'),cs=d.querySelector('tr.cs'),
ce=d.querySelector('tr.ce'),u=d.getElementById('culprit'),w=d.querySelector('th.wr'),
h=d.querySelector('table.trace thead'),o={vw:innerWidth,vh:innerHeight,
docw:d.documentElement.scrollWidth,fail:box(f),fail_hit:hit(f&&f.querySelector('td.sn')),
fail_wr_hit:hit(f&&f.querySelector('td.wr')),cycle:box(c),cycle_hit:hit(c),
cs:box(cs),cs_hit:hit(cs&&cs.querySelector('td.sn')),ce:box(ce),ce_hit:hit(ce&&ce.querySelector('td.sn')),
culprit:box(u),culprit_hit:hit(u&&u.querySelector('code')),wr:box(w),wr_hit:hit(w),
head:h?h.getBoundingClientRect().height:0,pane:box(p),pane_cw:p?p.clientWidth:0,
pane_ch:p?p.clientHeight:0,pane_sw:p?p.scrollWidth:0};
var e=d.createElement('pre');e.id='measure';e.textContent=JSON.stringify(o);d.body.appendChild(e);})();
</script>"""


def layout(exe, name, path, own_script=True):
    """The page's layout in a 1400x1000 window (--dump-dom of a copy with
    MEASURE appended; without the page's own script when own_script is
    false): (the dict MEASURE records or None, chromium's exit status, the
    DOM)."""
    text = page(path)
    if not own_script:
        text = re.sub(r"<script>.*?</script>", "", text, flags=re.S)
    copy = os.path.join(TMP, f"{name}-measure{'' if own_script else '-noscript'}.html")
    with open(copy, "w", encoding="utf-8") as f:
        f.write(text.replace("</body>", MEASURE + "</body>"))
    rc, dom = browser(exe, "--window-size=1400,1000", "--dump-dom", "file://" + copy)
    m = re.search(r'<pre id="measure">([^<]*)</pre>', dom)
    check(rc == 0 and m, f"{name}: chromium lays the page out and measures it (exit {rc})")
    return (json.loads(html.unescape(m.group(1))) if m else None), rc, dom


def visible(o, b, wide=False):
    """Box b ([left, top, right, bottom]) wholly on the first screen: inside
    the window (at most 1400x1000) and the pane's visible part, under the
    table's sticky header; `wide` (a row of a table wider than the window):
    its left end and its height."""
    if not b or not o["pane"]:
        return False
    left, top, right, bottom = b
    pane = o["pane"]
    return (left >= pane[0] - 1 and
            (wide or right <= min(o["vw"], 1400, pane[0] + o["pane_cw"]) + 1) and
            top >= pane[1] + o["head"] - 1 and
            bottom <= min(o["vh"], 1000, pane[1] + o["pane_ch"]) + 1)


def check_first_screen(name, o, js, own_script=True, fits=True):
    """What the page is about is on its first screen (the failing row, or
    the cycle's marker and first step), painted there (elementFromPoint),
    and the writes column is visible, o being layout()'s measures;
    `own_script`: the page's script ran; `fits`: no sideways scroll at all."""
    if o is None:
        return
    how = "" if own_script else " (the style sheet alone, no script)"
    check(o["vw"] == 1400 and 0 < o["vh"] <= 1000,
          f"{name}: the window is 1400 wide, at most 1000 high ({o['vw']}x{o['vh']})")
    if "cycle_start" in js["errors"][0]:
        check(visible(o, o["cycle"], not fits) and o["cycle_hit"] and visible(o, o["cs"], not fits)
              and o["cs_hit"], f"{name}: the cycle marker and the cycle's first step are on the "
                               f"first screen{how} ({o['cycle']}, {o['cs']}, pane {o['pane']})")
    else:
        check(visible(o, o["fail"], not fits) and o["fail_hit"],
              f"{name}: the failing row is on the first screen{how} ({o['fail']}, pane "
              f"{o['pane']}, window {o['vw']}x{o['vh']})")
        if o["culprit"]:
            check(visible(o, o["culprit"]) and o["culprit_hit"],
                  f"{name}: the failing instruction is on the first screen{how} ({o['culprit']})")
        check(o["fail_wr_hit"], f"{name}: the failing row's writes cell is not covered{how}")
    check(o["docw"] <= o["vw"], f"{name}: the page does not scroll sideways ({o['docw']} px wide)")
    check(o["wr"] and o["wr"][2] <= o["vw"] and o["wr_hit"],
          f"{name}: the writes column's header is in the window and not covered{how} ({o['wr']})")
    if fits:
        check(o["pane_sw"] <= o["pane_cw"],
              f"{name}: the table fits the width, no sideways scroll ({o['pane_sw']} px in "
              f"{o['pane_cw']})")
