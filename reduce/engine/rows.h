/* rows.h: how an engine hands its statistics' rows (its rows(), engine.h)
 * to a report's sink (reduce.h, explore_stats_rows()): each call names its
 * place, and only the rows at the place the report prints now reach it. A
 * text row has its label and its exact wording; a JSON member its key. */
#ifndef MCHECK_ROWS_H
#define MCHECK_ROWS_H

#include "reduce.h"

void stats_row(stats_sink *k, stats_place at, const char *label, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void stats_count(stats_sink *k, stats_place at, const char *key, uint64_t v);
void stats_signed(stats_sink *k, stats_place at, const char *key, int64_t v);
void stats_null(stats_sink *k, stats_place at, const char *key);
void stats_seconds(stats_sink *k, stats_place at, const char *key, double v);
/* Open an array (STATS_ARRAY, key) or an object in it (STATS_OBJECT, NULL);
 * stats_end() closes the last one open. */
void stats_open(stats_sink *k, stats_place at, stats_kind kind, const char *key);
void stats_end(stats_sink *k, stats_place at);

/* The rows of the nested DFS of --liveness=npc and of --ltl
 * (liveness/nested_rows.c). */
void npc_rows(const explore_options *o, const explore_result *r, stats_sink *k);
void ltl_rows(const explore_options *o, const explore_result *r, stats_sink *k);

#endif
