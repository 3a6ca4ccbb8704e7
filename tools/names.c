/* names.c: the one table per enumeration that only the mcheck tool names:
 * the values of --reduce, --race, --search and --lookahead (parsed from the
 * command line and printed back in the reports), the order --store lists its
 * kinds in, and the text report's sentence for each stop reason. The parser,
 * the usage errors and both reports read these tables, so a value is spelt
 * in one place. Not here: verdict and stop-reason names (reduce/'s
 * verdict_name, stop_reason_name) and store kind names (statestore/'s
 * store_kind_name), which their modules own; --help's text, which is
 * written for people. */
#include <stdio.h>
#include <string.h>

#include "tools_int.h"

const name_value reduce_names[] = {
    {"compose", REDUCE_COMPOSE},
    {"none", REDUCE_NONE},
    {NULL, 0},
};

const name_value race_names[] = {
    {"off", LS_OFF},
    {"ld", LS_LD},
    {"eraser", LS_ERASER},
    {"goldilocks", LS_GOLDILOCKS},
    {NULL, 0},
};

const name_value search_names[] = {
    {"dfs", SEARCH_DFS},
    {"bfs", SEARCH_BFS},
    {NULL, 0},
};

const name_value lookahead_names[] = {
    {"auto", LOOKAHEAD_AUTO},
    {"on", LOOKAHEAD_ON},
    {"child", LOOKAHEAD_CHILD},
    {"sibling", LOOKAHEAD_SIBLING},
    {"off", LOOKAHEAD_OFF},
    {NULL, 0},
};

const name_value *store_names(void)
{
    static const store_kind order[] = {STORE_COMPACT, STORE_EXACT, STORE_BITSTATE};
    static name_value t[sizeof order / sizeof order[0] + 1];
    if (!t[0].name)
        for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
            t[i] = (name_value){store_kind_name(order[i]), (int)order[i]};
    return t;
}

const char *name_of(const name_value *t, int value)
{
    for (; t->name; t++)
        if (t->value == value) return t->name;
    return "?";
}

bool name_parse(const name_value *t, const char *s, int *value)
{
    for (; t->name; t++)
        if (!strcmp(t->name, s)) {
            *value = t->value;
            return true;
        }
    return false;
}

void name_expected(const name_value *t, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; t[i].name && len < n; i++) {
        const char *sep = i == 0 ? "" : t[i + 1].name ? ", " : " or ";
        int w = snprintf(buf + len, n - len, "%s'%s'", sep, t[i].name);
        if (w < 0) break;
        len += (size_t)w;
    }
}

const char *stop_text(stop_reason s)
{
    switch (s) {
    case STOP_COMPLETE: return "search complete";
    case STOP_ERROR: return "search stopped at the first error";
    case STOP_DEPTH: return "search incomplete: paths longer than --max-depth were pruned";
    case STOP_MEMLIMIT: return "search incomplete: memory limit reached";
    case STOP_TIMELIMIT: return "search incomplete: time limit reached";
    case STOP_INTERRUPTED: return "search incomplete: interrupted";
    case STOP_NOMEM: return "search incomplete: out of memory";
    }
    return "?";
}
