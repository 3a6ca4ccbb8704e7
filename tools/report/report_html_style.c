/* report_html_style.c: what --trace-html's page (report_html.c) carries
 * besides its text: the inline style sheet and the one inline script that
 * opens the page at the failing step or the cycle. Nothing is fetched. */
#include "html_int.h"

const char *const html_css =
    ":root{color-scheme:light}"
    "body{margin:0;font:14px/1.4 system-ui,-apple-system,'Segoe UI',sans-serif;"
    "color:#1d2430;background:#fff}"
    "code,pre,.i,.mono{font-family:ui-monospace,Menlo,Consolas,'DejaVu Sans Mono',monospace;"
    "font-size:12.5px}"
    "header{padding:10px 20px 8px;border-bottom:1px solid #d0d7de;background:#f6f8fa}"
    "h1{font-size:19px;margin:0 0 2px;font-weight:600}"
    ".run{margin:0 0 6px;font-size:12.5px;color:#57606a}.run code{font-size:12px}"
    ".run .lb{font-weight:600;margin-right:4px}"
    ".verdict{display:inline-block;padding:0 10px;border-radius:10px;color:#fff;"
    "background:#b42318;margin-right:8px}"
    ".verdict.ok{background:#1a7f37}.verdict.incomplete{background:#9a6700}"
    "table.meta{border-collapse:collapse}"
    "table.meta th{text-align:left;font-weight:600;padding:1px 14px 1px 0;vertical-align:top;"
    "color:#57606a;white-space:nowrap}"
    "table.meta td{padding:1px 0}"
    "table.meta pre{margin:0;white-space:pre-wrap}"
    ".msg{font-weight:600;color:#b42318}"
    ".warn{color:#9a6700;font-weight:600}"
    ".legend{margin:6px 0 0;font-size:12.5px;color:#57606a}"
    ".legend>span{margin-right:14px;white-space:nowrap}"
    ".sw{display:inline-block;width:18px;height:11px;vertical-align:-1px;margin-right:4px;"
    "border:1px solid #d0d7de}"
    "main{padding:10px 20px 40px}"
    /* the page of a trace fills the window: the header on top (its own
     * scroll past 45% of the height), the table in a pane under it that
     * scrolls both ways (the step column sticks left, the writes column
     * right); column-reverse makes the pane open at its end, the failing
     * step, without a script; the table's auto margin keeps a table
     * shorter than the pane at its top */
    "html,body.pane{height:100%}"
    "body.pane{display:flex;flex-direction:column}"
    "body.pane header{flex:none;max-height:45%;overflow:auto}"
    "body.pane main{flex:1 1 auto;min-height:0;overflow:auto;display:flex;"
    "flex-direction:column-reverse;align-items:flex-start;padding:0 0 16px}"
    "body.pane main>table{margin:0 20px auto;flex:none}"
    "@media print{html,body.pane{height:auto}body.pane{display:block}"
    "body.pane header{max-height:none}body.pane main{display:block;overflow:visible}}"
    "table.trace{border-collapse:separate;border-spacing:0}"
    "table.trace th{position:sticky;top:0;z-index:3;background:#24292f;color:#fff;"
    "padding:5px 10px;text-align:left;font-weight:600;white-space:nowrap}"
    "table.trace td{vertical-align:top;border-bottom:1px solid #e6e9ee;"
    "border-left:1px solid #e6e9ee;padding:3px 8px 3px 8px;position:relative;min-width:90px}"
    "table.trace td.sn{min-width:0;text-align:right;color:#57606a;white-space:nowrap;"
    "font-variant-numeric:tabular-nums;position:sticky;left:0;z-index:1;background:#fff}"
    "table.trace td.wr{min-width:110px;position:sticky;right:0;z-index:1;background:#fff;"
    "box-shadow:-1px 0 #d0d7de}"
    "table.trace th.wr{right:0;z-index:4;box-shadow:-1px 0 #57606a}"
    ".p1{padding-left:16px!important}.p2{padding-left:23px!important}"
    ".p3{padding-left:30px!important}.p4{padding-left:37px!important}"
    ".p5{padding-left:44px!important}.p6{padding-left:51px!important}"
    ".p7{padding-left:58px!important}.p8{padding-left:65px!important}"
    ".p9{padding-left:72px!important}.p10{padding-left:79px!important}"
    ".p11{padding-left:86px!important}.p12{padding-left:93px!important}"
    ".bar{position:absolute;top:0;bottom:-1px;width:5px}"
    ".bar.s{top:4px;border-radius:3px 3px 0 0}.bar.e{bottom:4px;border-radius:0 0 3px 3px}"
    ".bar.s.e{border-radius:3px}"
    ".l0{left:3px}.l1{left:10px}.l2{left:17px}.l3{left:24px}.l4{left:31px}.l5{left:38px}"
    ".l6{left:45px}.l7{left:52px}.l8{left:59px}.l9{left:66px}.l10{left:73px}.l11{left:80px}"
    ".k0{background:#1f77b4}.k1{background:#ff7f0e}.k2{background:#2ca02c}"
    ".k3{background:#9467bd}.k4{background:#8c564b}.k5{background:#e377c2}"
    ".k6{background:#17becf}.k7{background:#bcbd22}.k8{background:#7f7f7f}"
    ".k9{background:#393b79}"
    ".i{display:flex;align-items:baseline}.i code,.fx,.lk{white-space:nowrap}"
    ".i>span+span{min-width:0}"
    ".ln{flex:none;min-width:2.4em;color:#8c959f;text-align:right;margin-right:7px}"
    ".fx{margin-left:8px;padding:0 4px;border-radius:3px}"
    ".fx.w{background:#fff0a0;font-weight:600}.fx.r{color:#0a5d8a}"
    ".fx.v{color:#6e7781}.fx.k{color:#57606a}"
    ".lk{margin-left:7px;padding:0 6px;border-radius:8px;color:#fff;font-size:11.5px}"
    ".wv{font-family:ui-monospace,Menlo,Consolas,'DejaVu Sans Mono',monospace;font-size:12.5px;"
    "background:#fff0a0;font-weight:600;padding:0 4px;border-radius:3px;white-space:nowrap;"
    "display:inline-block;margin:1px 0}"
    "td.nb{background:repeating-linear-gradient(135deg,#f3f4f6 0 5px,#fff 5px 10px)}"
    "td.gone{background:#f3f4f6}"
    "td.wt{background:#eaf2ff;color:#1f4e99}"
    "td.bl{background:#fff1e0;color:#8a4b00}"
    "td.sp .st{color:#1a7f37}"
    ".st{font-size:12.5px;font-style:italic}"
    ".cut{color:#6e7781;font-style:italic;font-size:12px}"
    "tr.fail td{background:#fde8e8;border-top:2px solid #b42318;border-bottom:2px solid #b42318}"
    "tr.fail td.sn{color:#b42318;font-weight:700;background:#fde8e8}"
    ".i.bad{background:#f6b8b8;border-radius:3px}"
    ".errmsg{color:#b42318;font-weight:600;font-size:12.5px;white-space:normal}"
    "tr.gap td{text-align:center;font-style:italic;color:#57606a;background:#f6f8fa}"
    /* a lasso: the marker row, the cycle's rows, its closing step */
    "tr.cycmark td{background:#f3eefe;color:#5a32a3;font-weight:600;padding:4px 10px;"
    "border-top:2px solid #8250df;border-bottom:1px solid #d8ccf5}"
    "tr.cycmark div{width:0;min-width:100%}" /* the text wraps: it does not widen the table */
    "tr.cyc td.sn{background:#f3eefe;color:#5a32a3;box-shadow:inset 4px 0 #8250df;font-weight:600}"
    "tr.cyc.ce td{border-bottom:2px solid #8250df}"
    "a.goto{font-weight:600}a.goto.fl{color:#b42318}a.goto.cy{color:#5a32a3}";

/* Opens the trace's pane (body.pane main) at what the page is about, when
 * the address has no #fragment: the failing row (#fail) or the cycle (its
 * marker row #cycle to the last tr.cyc). The pane opens at its end by
 * itself; if the rows are not all in view there, they are scrolled to,
 * their bottom at the pane's bottom (the rows before them above) or their
 * top under the table's sticky header when they are taller than the pane;
 * and the failing instruction (#culprit) is scrolled into view sideways
 * (between the sticky step and writes columns). Without scripts the
 * header's link goes there. */
const char *const html_script =
    "(function(){if(location.hash)return;var d=document,p=d.querySelector('body.pane main'),"
    "a=d.getElementById('fail')||d.getElementById('cycle');if(!p||!a)return;"
    "var c=d.querySelectorAll('tr.cyc'),z=a.id=='cycle'&&c.length?c[c.length-1]:a,"
    "q=p.getBoundingClientRect(),h=d.querySelector('table.trace thead'),"
    "top=q.top+(h?h.getBoundingClientRect().height:0),bot=q.top+p.clientHeight,"
    "y0=a.getBoundingClientRect().top,y1=z.getBoundingClientRect().bottom;"
    "if(y0<top||y1>bot)p.scrollBy(0,y1-y0>bot-top-8?y0-top-4:y1>bot?y1-bot+4:y0-top-4);"
    "var u=d.getElementById('culprit');if(!u)return;"
    "var s=d.querySelector('td.sn'),w=d.querySelector('th.wr'),r=u.getBoundingClientRect(),"
    "l=q.left+(s?s.getBoundingClientRect().width:0),"
    "e=q.left+p.clientWidth-(w?w.getBoundingClientRect().width:0);"
    "if(r.left<l||r.right>e)p.scrollBy(r.left-l-8,0)})();";
