/* names.c: the command line's view of the enumerations it parses: for
 * --reduce, --race, --search, --lookahead and --store, the order in which
 * usage errors list their values, with each value spelt by the module that
 * owns the enumeration (reduce/engine/search.c's *_name(), statestore's
 * store_kind_name()), so a name is written in one place only. Not here:
 * --help's text, which is written for people, and the reports' sentence for
 * each stop reason (report/run_notes.c). */
#include <stdio.h>
#include <string.h>

#include "cli_int.h"

/* Each table lists, in the order usage errors name them, the values of one
 * option; their spelling is the owning module's (reduce/engine/search.c's
 * *_name(), statestore's store_kind_name()). */
#define NAME_TABLE(fn, namefn, ...)                                              \
    const name_value *fn(void)                                                   \
    {                                                                            \
        static const int order[] = {__VA_ARGS__};                                \
        static name_value t[sizeof order / sizeof order[0] + 1];                 \
        if (!t[0].name)                                                          \
            for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)         \
                t[i] = (name_value){namefn(order[i]), order[i]};                 \
        return t;                                                                \
    }

NAME_TABLE(reduce_names, reduce_mode_name, REDUCE_COMPOSE, REDUCE_NONE)
NAME_TABLE(race_names, race_mode_name, LS_OFF, LS_LD, LS_ERASER, LS_GOLDILOCKS)
NAME_TABLE(search_names, search_order_name, SEARCH_DFS, SEARCH_BFS, SEARCH_STATELESS)
NAME_TABLE(lookahead_names, lookahead_mode_name, LOOKAHEAD_AUTO, LOOKAHEAD_ON,
           LOOKAHEAD_CHILD, LOOKAHEAD_SIBLING, LOOKAHEAD_OFF)
NAME_TABLE(store_names, store_kind_name, STORE_COMPACT, STORE_EXACT, STORE_BITSTATE)

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
