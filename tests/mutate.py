#!/usr/bin/env python3
"""mutate.py: seeded bugs (mutation testing) to see which the test suite
catches. Each mutant is one small edit to a scratch copy of the source (the
files git knows of, with uncommitted changes, copied to a temporary
directory): build it (Release), run ctest, and record which tests fail. A
mutant is "caught" when at least one test fails. The unmutated copy runs
first and must pass, or the table would mean nothing.

Each mutation finds its target by a regular expression over a set of files
(globs), so it survives code moving between files; it must match exactly
once, else the script stops with "mutation X: pattern not found" (or "matches
N places"): a seeded bug that silently does not apply would read as caught
or missed for the wrong reason. Not a test of its own (ctest does not run it:
it takes a minute a mutant); run it after changing the tests (issue 21). The
idea: mutation analysis (DeMillo, Lipton & Sayward, "Hints on test data
selection", 1978).

usage: tests/mutate.py [--src DIR] [--only NAME[,NAME...]] [--tests REGEX]
                       [--jobs N] [--keep] [--list]
Prints one line per mutant (caught by which tests, or MISSED) and exits 1
when a mutant is missed or cannot be applied or built.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# (name, what the bug is, file globs, pattern, replacement[, further edits]).
# The replacement keeps the code compiling without warnings (-Werror builds).
# A bug that needs several places changed lists the others as a sixth
# element, [(file globs, pattern, replacement), ...], applied in order.
MUTANTS = [
    ("spawn-slot-per-proc",
     "spawn slots numbered per proc instead of over all spawns (issue 21)",
     ["vm/*.c"],
     r"uint32_t c = p->nstatic \+ spawned;",
     "uint32_t c = p->nstatic + *count + 0 * spawned;"),
    ("all-errors-ignored",
     "--all-errors accepted but ignored (issue 21)",
     ["tools/cli/*.c"],
     r"(case OPT_ALL:)\s*c->eo\.all_errors = true;",
     r"\1"),
    ("notify-wakes-no-one",
     "notify wakes no waiter (issue 21)",
     ["vm/*.c"],
     r"if \(waiters\(p, s, l\)\) wake\(",
     "if (0 && waiters(p, s, l)) wake("),
    ("csignal-wakes-no-one",
     "csignal wakes no waiter: every signal is lost (issue 30)",
     ["vm/*.c"],
     r"if \(!all && choice-- != 0\) continue;",
     "if (!all) { (void)choice; break; }"),
    ("cwait-keeps-lock",
     "cwait joins the cond's wait set without releasing its lock (issue 30)",
     ["vm/*.c"],
     r"s\[lo\] = 0;\n    vm_wr16\(s, lo \+ 1, 0\);\n    (s\[vm_cond_off)",
     r"\1"),
    ("release-keeps-depth",
     "release does not decrement a recursive depth (issue 21)",
     ["vm/*.c"],
     r"uint32_t d = vm_rd16\(s, lo \+ 1\) - 1;",
     "uint32_t d = vm_rd16(s, lo + 1) > 1 ? vm_rd16(s, lo + 1) : 0;"),
    ("compact-low8",
     "compact store: fingerprints that share their low 8 bits are one (issue 21)",
     ["statestore/*.c"],
     r"(static inline store_result insert64\(store \*st, uint64_t hi\)\n\{\n)",
     r"\1    hi &= 0xff;\n"),
    ("wait-restores-depth-1",
     "the re-acquire after wait restores depth 1, not the saved depth",
     ["vm/*.c"],
     r"vm_wr16\(s, lo \+ 1, vm_rd16\(s, dep\)\);",
     "vm_wr16(s, lo + 1, (uint16_t)(1 + 0 * vm_rd16(s, dep)));"),
    ("recv-invisible",
     "recv not a visible operation (the reduction composes across it)",
     ["vm/opcodes.def"],
     r"(OP\(recv,\s*VM_FMT_RC,\s*)VM_F_VIS \| ",
     r"\1"),
    # --por (issue 15): the reduction weakened on purpose
    ("por-no-enablers",
     "--por: a disabled thread in the persistent set adds no enablers",
     ["reduce/ts/por.c"],
     r"add = por_enablers\(P, s, \(int\)t, live\);",
     "add = 0 & por_enablers(P, s, (int)t, live);"),
    ("por-locks-independent",
     "--por: lock objects left out (acquire, release, wait, notify independent)",
     ["reduce/ts/por.c"],
     r"if \(!known\(ix\) \|\| \(vm_absval\)i == ix\) set_bit\(w, d->first \+ i\);",
     "if (0 && (!known(ix) || (vm_absval)i == ix)) set_bit(w, d->first + i);"),
    ("por-chans-independent",
     "--por: channel objects left out (send, recv independent)",
     ["reduce/ts/por.c"],
     r"case VM_OP_recv: set_bit\(w, P->obj_chan \+ \(uint32_t\)in->obj\); break;",
     "case VM_OP_recv: break;"),
    ("por-elems-independent",
     "--por: global elements left out (volatile, unshared, undischarged shared)",
     ["reduce/ts/por.c"],
     r"set_bit\(w, P->obj_elem \+ e\);",
     "(void)e;"),
    ("por-spawn-independent",
     "--por: a spawn neither touches its counter nor its child's future",
     ["reduce/ts/por.c"],
     r"set_bit\(w, P->obj_spawn\); /\* one counter hands out every thread id \*/\n(\s*)"
     r"if \(spawn_self\) \*spawn_self = ",
     r"if (0 && spawn_self) *spawn_self = "),
    ("por-spawn-per-proc",
     "--por: a spawn touches a counter of its proc's own (spawns of different procs commute), "
     "though one counter hands out every thread id",
     ["reduce/ts/por.c"],
     r"set_bit\(w, P->obj_spawn\); /\* one counter hands out every thread id \*/",
     "set_bit(w, P->obj_spawn + (uint32_t)in->obj);",
     [(["reduce/ts/por.c"], r"P->obj_cond = P->obj_spawn \+ 1;",
       "P->obj_cond = P->obj_spawn + p->nbodies;")]),
    ("rendezvous-sender-alone",
     "a rendezvous send completes without its receiver: the receiver stays at its recv "
     "(issue 30)",
     ["vm/*.c"],
     r"set_pc\(s, rs, rpc \+ 1\);",
     "(void)rs, (void)rpc;"),
    ("rendezvous-no-receiver-tail",
     "a rendezvous step stops at the receiver's recv: its invisible tail is left for a "
     "later step (issue 30)",
     ["reduce/ts/step.c"],
     r"k < 2 && rc == VM_OK && e->reduce == REDUCE_COMPOSE",
     "k < 1 && rc == VM_OK && e->reduce == REDUCE_COMPOSE"),
    ("rendezvous-one-way",
     "the detectors see a rendezvous as a buffered send and recv: the receiver's earlier "
     "events are not ordered before the sender's later ones (issue 30)",
     ["vm/*.c"],
     r"HOOK\(h, recv, s, r, c\) \|\| HOOK\(h, send, s, r, c\) \|\|\n        HOOK\(h, recv, s, t->tid, c\)",
     "HOOK(h, recv, s, r, c)"),
    ("por-rendezvous-no-receiver-tail",
     "--por: a rendezvous send's step touches only the channel and the sender's tail, not "
     "the receiver's (issue 30)",
     ["reduce/ts/por.c"],
     r"rendezvous_send\(p, &b->code\[pc\]\) \? por_partners\(P, s, t\) : 0",
     "0"),
    ("por-cond-independent",
     "--por: cwait, csignal and cbroadcast touch no cond (a signal commutes with the cwait "
     "it would wake or lose)",
     ["reduce/ts/por.c"],
     r"if \(vm_ops\[in->op\]\.flags & VM_F_COND\) \{",
     "if (0 && (vm_ops[in->op].flags & VM_F_COND)) {"),
    ("fold-start-ignores-props",
     "--por: a thread's invisible start is folded even when a prop watches its location (T@label)",
     ["reduce/ts/step.c"],
     r"\n[ \t]*if \(p->threads\[tid\]\.loc_read\) return true;",
     ""),
    ("por-dfs-no-cycle-proviso",
     "--por: the DFS stack proviso off (a step back onto the stack expands nothing more)",
     ["reduce/search/dfs_por.c"],
     r"\(rc == INS_SEEN && onstack_has\(",
     "(0 && rc == INS_SEEN && onstack_has("),
    ("por-bfs-no-proviso",
     "--por: the BFS proviso off (a successor seen before expands nothing more)",
     ["reduce/search/bfs.c"],
     r"seen \|= rc == INS_SEEN \|\| out\.kind != VERDICT_OK;",
     "seen |= out.kind != VERDICT_OK;"),
    ("por-sleep-never-wakes",
     "--por: a sleeping thread stays asleep after a dependent step",
     ["reduce/search/dfs_por.c"],
     r"f->indep = f->sleep \? por_independent\(S->por, S->cur, \(int\)t, f->sleep\) : 0;",
     "f->indep = f->sleep;"),
    ("por-ahead-any-step",
     "--por: the level's step built ahead is taken even when the search takes another step next",
     ["reduce/search/dfs_por.c"],
     r"b->depth == depth && b->st\.tid == st\.tid &&",
     "b->depth == depth && (b->st.tid == st.tid || 1) &&"),
    ("por-sleep-state-match",
     "--por: a state seen before is not explored again for threads it slept on",
     ["reduce/search/dfs_por.c"],
     r"if \(hz & ~z\) \{",
     "if (0 && (hz & ~z)) {"),
    # --search=stateless (issue 19): sleep sets made unsound
    ("sl-sleep-keeps-dependent",
     "stateless: a child inherits the whole sleep set, dependent steps included",
     ["reduce/search/stateless.c"],
     r"uint64_t z = f->sleep & f->indep;",
     "uint64_t z = f->sleep | (f->indep & 0);"),
    ("sl-sleep-erred",
     "stateless: a thread whose step erred goes to sleep too",
     ["reduce/search/stateless.c"],
     r"sleep_sets && !f->erred\)",
     "sleep_sets)"),
    # --scheduling=races (issue 19, second part): the DPOR made unsound
    ("races-ignored",
     "races: no backtrack point is ever added (races ignored)",
     ["reduce/search/stateless_races.c"],
     r"add_backtrack\(S, R, j, \(int\)t\);",
     "(void)add_backtrack;"),
    ("races-no-fallback",
     "races: the racing thread alone is added even where its step is not light",
     ["reduce/search/stateless_races.c"],
     r"uint64_t add = \(l->light >> t & 1\) \? 1ull << t : l->enabled;",
     "uint64_t add = (l->enabled >> t & 1) ? 1ull << t : l->enabled;"),
    ("races-owner-clock",
     "races: an acquire joins the last releaser's current clock, not its clock at the release",
     ["reduce/search/stateless_races.c"],
     r"(case VM_OP_acquire:\s*acquired = lock_elem\(p, pre, tid, in\);)\s*"
     r"if \(acquired != NONE\) ok = clk_join\(S, R, q, R->o_lock \+ acquired, false\);",
     r"\1 if (acquired != NONE) { const uint32_t *L = clock_of(R, R->o_lock + acquired); "
     r"uint32_t u = 0; for (uint32_t k = 1; k < R->n; k++) if (L[k] > L[u]) u = k; "
     r"if (L[u]) ok = clk_join(S, R, q, u, false); }"),
    ("races-error-not-full",
     "races: a step that errs leaves its light node light",
     ["reduce/search/stateless_races.c"],
     r"if \(l->backtrack == l->enabled\) return;",
     "if (1 || l->backtrack == l->enabled) return;"),
    ("sl-preemption-uncounted",
     "stateless: a preemption is allowed at every node but never added to the path's count",
     ["reduce/search/stateless.c"],
     r"uint32_t pre = f->preempt \+ preempts\(f, st\.tid\);",
     "uint32_t pre = f->preempt + 0 * preempts(f, st.tid);"),
    ("sl-raised-bound-keeps-depth",
     "stateless: a raised preemption bound starts at the last depth bound, not the first",
     ["reduce/search/stateless.c"],
     r"it\.bound = bound0;\n(\s*continue;)",
     r"\1"),
    # sleep sets with a preemption bound (bounded_sleep.c, issue 34)
    ("sl-bounded-naive-sleep",
     "stateless: with a preemption bound, a sleeping thread's step is left out as without one "
     "(naive sleep sets: the order they stand for may need more preemptions)",
     ["reduce/search/stateless.c"],
     r"const uint64_t skip = it->k >= 0 \? f->covered : f->sleep;",
     "const uint64_t skip = f->sleep | (f->covered & 0);"),
    ("sl-bounded-cover-unended",
     "stateless: with a preemption bound, the covering order is not charged for the x that "
     "preempts z (Q without its [z has not ended])",
     ["reduce/search/bounded_sleep.c"],
     r"q \+= por_objects_meet\(S->por, o, sl->pf \+ \(size_t\)\(f - sl->frames\) \* sl->words\)\s*"
     r"\? 1u : f->last_enabled;",
     "q += 0 * por_objects_meet(S->por, o, sl->pf + (size_t)(f - sl->frames) * sl->words);"),
    # delay-bounded scheduling (delay_bound.c, issue 34)
    ("sl-delay-flat-cost",
     "stateless: with a delay bound, taking the k-th enabled thread after the scheduler's pick "
     "costs 1 delay, not k",
     ["reduce/search/delay_bound.c"],
     r"k = f->dk \+ 1;",
     "k = 1;"),
    ("sl-delay-no-wrap",
     "stateless: with a delay bound, the round-robin order does not wrap from the highest "
     "thread id to thread 0",
     ["reduce/search/delay_bound.c"],
     r"for \(; i < nt; i\+\+\) \{",
     "for (; start + i < nt; i++) {"),
    ("par-steal-loses-item",
     "-j N: a handed-over stack loses its newest item",
     ["reduce/search/parallel_workers.c"],
     r"W->stack\.n -= give;",
     "W->stack.n -= give; if (W->stack.n > 1) W->stack.n--;"),
    ("par-ends-early",
     "-j N: a worker whose stack runs dry ends the search for it (no stealing)",
     ["reduce/search/parallel_workers.c"],
     r"if \(!steal\(W\)\) break;",
     "if (1 || !steal(W)) break;"),
    ("par-path-skips-parent",
     "-j N: an error's path leaves out the step into the item's parent",
     ["reduce/search/parallel.c"],
     r"for \(const pnode \*n = h->parent; n && n->depth > 0; n = n->parent\) path\[--k\] = n->via;",
     "for (const pnode *n = h->parent; n && n->depth > 1; n = n->parent) path[--k] = n->via;"),
    ("par-no-proviso",
     "-j N --por: the seen-successor proviso off",
     ["reduce/search/parallel.c"],
     r"e->seen \|= rc == INS_SEEN \|\| b->out\.kind != VERDICT_OK;",
     "e->seen |= b->out.kind != VERDICT_OK;"),
    ("mpi-por-no-proviso",
     "mcheck-mpi --por: the static cycle proviso off (no step closes a cycle; never expanded fully)",
     ["reduce/mpi/mpi.c"],
     r"if \(por_may_close_cycle\(",
     "if (0 && por_may_close_cycle("),
    ("mpi-async-idle-only",
     "mcheck-mpi --exchange=async: termination once two waves find every rank idle, "
     "the messages in flight not counted",
     ["reduce/mpi/mpi_async.c"],
     r"bool quiet = sum\[W_IDLE\] == \(uint64_t\)M->k && sum\[W_SENT\] == sum\[W_RECV\];",
     "bool quiet = sum[W_IDLE] == (uint64_t)M->k;"),
    ("par-bfs-drops-part",
     "-j N --search=bfs: a level leaves out the last worker's part",
     ["reduce/search/parallel_workers.c"],
     r"total \+= part\(&P->w\[w\], k\)->n;",
     "total += w + 1 < P->n ? part(&P->w[w], k)->n : 0;"),
    ("por-dfs-no-error-proviso",
     "--por: the DFS does not expand fully a state with a step into an error",
     ["reduce/search/dfs_por.c"],
     r"\(out\.kind != VERDICT_OK \|\|\n",
     "(0 ||\n"),
    # --shorten (issue 18): the breadth-first search for a shorter trace
    ("shorten-any-fault",
     "--shorten: a fault matches any fault of its kind, wherever it is",
     ["reduce/policy/shorten.c"],
     r"return fault == t->fault && body == t->body && pc == t->pc;",
     "return fault == t->fault && (body | 1) && (pc | 1);"),
    # signals (issue 31): the handler must stay for the next signal
    ("signal-once",
     "SIGINT/SIGTERM: the handler is reset after the first signal (a second one kills the report)",
     ["tools/cli/mcheck.c"],
     r"sigemptyset\(&sa\.sa_mask\);",
     "sigemptyset(&sa.sa_mask);\n    sa.sa_flags = SA_RESETHAND;"),
    ("replay-control-bytes",
     "--replay: a raw control byte in the file is read as a blank (cJSON's way)",
     ["tools/cli/replay_read.c"],
     r"if \(b < 0x20 && b != '\\t' && b != '\\n' && b != '\\r'\) \{",
     "if (b < 0x20 && 0) {"),
    ("replay-starved-any-tid",
     "--replay: a starved_tid the model does not have replays as no error",
     ["tools/cli/replay_cli.c"],
     r"if \(r->starvation && \(\(uint32_t\)l\.starved >= p->nthreads \|\|",
     "if (r->starvation && 0 && ((uint32_t)l.starved >= p->nthreads ||"),
    # --liveness=npc and --ltl (issue 20): the one nested search (nested.c),
    # its replay check, and npc's automaton (liveness.c)
    ("liveness-progress-taken",
     "--liveness=npc: the copy and the nested search take progress steps too",
     ["reduce/liveness/nested_int.h"],
     r"return k != MOVE_NONPROGRESS \|\| !is_progress\(p, v, t\);",
     "return k != 7 || !is_progress(p, v, t);"),
    ("nested-no-replay-check",
     "--liveness=npc, --ltl: a cycle is recorded without the replay check",
     ["reduce/liveness/nested.c"],
     r"bool ok = nested_lasso_holds\(S, path, qs, n, start\);",
     "bool ok = 1 || nested_lasso_holds(S, path, qs, n, start);"),
    ("nested-accepting-ignored",
     "--liveness=npc, --ltl: no nested search from accepting states (accepting cycles never found)",
     ["reduce/liveness/nested.c"],
     r"if \(A->accepting\[f->q\] && nested\(S, depth\) != NOT_FOUND\) break;",
     "if (A->accepting[f->q] == 7 && nested(S, depth) != NOT_FOUND) break;"),
    ("npc-no-copy-move",
     "--liveness=npc: copy 0 never moves to the non-progress copy (its EPS edge goes nowhere new)",
     ["reduce/liveness/liveness.c"],
     r"static const uint32_t npc_succ\[\] = \{1, 0, 1\};",
     "static const uint32_t npc_succ[] = {0, 0, 1};"),
    ("ltl-drop-conjunct",
     "--ltl: the tableau drops the right operand of a conjunction",
     ["reduce/liveness/ltl.c"],
     r"expand\(T, in, nin, nw \| \(\(BIT\(s->l\) \| BIT\(s->r\)\) & ~old\), old \| b, next\);\n        return;\n    case F_OR:",
     "expand(T, in, nin, nw | (BIT(s->l) & ~old), old | b, next);\n        return;\n    case F_OR:"),
    ("ltl-release-invisible",
     "ltl: releases of the locks props read stay invisible under --ltl",
     ["vm/props.c"],
     r"if \(x->op != VM_PX_OWNER\) continue;",
     "if (x->op != VM_PX_OWNER || 1) continue;"),
    # --por with --liveness=npc and --ltl (issue 20): live_por.c's conditions
    ("ltl-shared-store-invisible",
     "--ltl: the stores to a shared variable a prop reads stay invisible",
     ["vm/props.c"],
     r"if \(in->op != VM_OP_store \|\| in->visible \|\| in->in_block\) continue;",
     "if (in->op != VM_OP_store || in->visible || 1) continue;"),
    ("ltl-por-shared-discharged",
     "--ltl --por: a shared element a prop reads may stay discharged (no object of its stores)",
     ["reduce/ts/por.c"],
     r"P->discharged\[p->props\[i\]\.code\[k\]\.a\] = 0;",
     "P->discharged[p->props[i].code[k].a] = P->discharged[p->props[i].code[k].a];"),
    ("live-por-no-visibility",
     "--por in the nested searches: a persistent set may hold a progress step or one that changes a prop",
     ["reduce/liveness/live_por.c"],
     r"if \(visible\(S, s, __builtin_ctzll\(m\)\)\) return enabled;",
     "if (visible(S, s, __builtin_ctzll(m)) && 0) return enabled;"),
    ("liveness-por-progress-invisible",
     "--liveness=npc --por: a progress step may sit in a persistent set",
     ["reduce/liveness/live_por.c"],
     r"if \(!S->o->ltl\) return is_progress\(S->p, s, t\);",
     "if (!S->o->ltl) return 0 && is_progress(S->p, s, t);"),
    ("ltl-por-store-invisible",
     "--ltl --por: a store to a volatile element a prop reads may sit in a persistent set",
     ["reduce/ts/por.c"],
     r"case VM_OP_store: case VM_OP_acquire: case VM_OP_release: case VM_OP_wait: break;",
     "case VM_OP_acquire: case VM_OP_release: case VM_OP_wait: break;"),
    ("ltl-por-release-invisible",
     "--ltl --por: a release of a lock a prop reads may sit in a persistent set",
     ["reduce/ts/por.c"],
     r"case VM_OP_store: case VM_OP_acquire: case VM_OP_release: case VM_OP_wait: break;",
     "case VM_OP_store: case VM_OP_acquire: case VM_OP_wait: break;"),
    ("ltl-por-location-ignored",
     "--ltl --por: the steps of a thread whose location a prop reads are not all visible",
     ["reduce/liveness/live_por.c"],
     r"return \(\(at >> t\) & 1\) \|\| \(at && \(por_partners\(S->por, s, t\) & at\)\) \|\|",
     "return (void)at, "),
    ("live-por-nested-own-choices",
     "--por in the nested searches: the nested search ignores the outer one's proviso",
     ["reduce/liveness/live_por.c"],
     r"if \(nested && map_get\(&ND\(S\)->full, key\)\) return enabled;",
     "if (nested && map_get(&ND(S)->full, key) && 0) return enabled;"),
    ("liveness-por-error-not-full",
     "--liveness=npc --por: a step into an error does not expand its state fully",
     ["reduce/liveness/nested.c"],
     r"if \(out->kind == VERDICT_OK &&\n",
     "if ((out->kind == VERDICT_OK || 1) &&\n"),
    ("ltl-por-no-proviso",
     "--ltl --por: no cycle proviso (a successor on the stack does not expand the state fully)",
     ["reduce/liveness/nested.c"],
     r"\(!ND\(S\)->A\.stack_proviso \|\| !map_get",
     "(1 || !map_get"),
    # --liveness=starvation [--fair] (issue 20): the SCC conditions
    ("starvation-fairness-ignored",
     "--liveness=starvation --fair: an SCC is a witness without fairness witnesses",
     ["reduce/liveness/starvation.c"],
     r"if \(missing\) \{ /\* a thread continuously enabled that never steps \*/",
     "if (0 && missing) { /* a thread continuously enabled that never steps */"),
    ("starvation-hidden-disabled-ignored",
     "--liveness=starvation --fair=weak: a thread disabled inside a composed step is not seen",
     ["reduce/liveness/starvation*.c"],
     r"if \(S->o->reduce == REDUCE_NONE\) return true; /\* the step is one instruction \*/",
     "return true; /* the step is one instruction */"),
    ("starvation-enabled-dropped",
     "--liveness=starvation: the starved thread need not be enabled in the SCC",
     ["reduce/liveness/starvation.c"],
     r"if \(w0 < 0 && bit\(b, T\) && bit\(b \+ g->nw, T\)\) w0 = v;",
     "if (w0 < 0 && bit(b + g->nw, T)) w0 = v;"),
    # --fair=strong (issue 31): the Streett refinement, the default of --fair,
    # the replay check's condition
    ("starvation-strong-no-refinement",
     "--liveness=starvation --fair=strong: a thread enabled in an SCC and never stepping in it "
     "is not removed (the SCC is accepted as if weakly fair)",
     ["reduce/liveness/starvation.c"],
     r"bad\[u\] = bad\[u\] && !stepped\[u\];",
     "bad[u] = 0 && !stepped[u];"),
    ("starvation-fair-default-weak",
     "--fair without a value means weak fairness (strong only as --fair=strong)",
     ["tools/cli/options.c"],
     r"if \(!optarg \|\| !strcmp\(optarg, \"strong\"\)\) c->eo\.fair = FAIR_STRONG;",
     "if (!optarg || !strcmp(optarg, \"strong\")) c->eo.fair = optarg ? FAIR_STRONG : FAIR_WEAK;"),
    ("starvation-strong-replay-unchecked",
     "--replay of a starvation lasso: strong fairness is not checked (a weakly fair lasso passes)",
     ["reduce/liveness/starvation.c"],
     r"if \(S->o->fair == FAIR_STRONG && \(seen\[u\] & ENABLED\) && !\(seen\[u\] & STEPPED\)\) ok = false;",
     "if (S->o->fair == FAIR_STRONG && (seen[u] & ENABLED) && !(seen[u] & STEPPED) && 0) ok = false;"),
    ("fair-cycle-progress-taken",
     "--liveness=npc --fair: the product's non-progress copy takes progress steps too",
     ["reduce/liveness/fair_cycle.c"],
     r"if \(k == MOVE_NONPROGRESS && x->prog\) continue; /\* buchi_takes\(\) \*/",
     "if (0 && k == MOVE_NONPROGRESS && x->prog) continue;"),
    ("fair-cycle-fairness-unchecked",
     "--ltl --fair, --liveness=npc --fair: a product SCC is not refined for strong fairness",
     ["reduce/liveness/starvation.c"],
     r"if \(S->o->fair == FAIR_STRONG\) return strong_scc\(S, g, w, cid, T, members, m, cidc\);",
     "if (S->o->fair == FAIR_STRONG && !g->acc) return strong_scc(S, g, w, cid, T, members, m, cidc);"),
    # issue 28: the holes an outside tester found, and the reduction made stronger
    ("por-owned-mask-any",
     "--por: a step's locks are left out of its objects whether or not the thread owns them",
     ["reduce/ts/por.c"],
     r"if \(!\(\(step\[l >> 6\] >> \(l & 63\)\) & 1\) \|\| vm_lock_owner\(p, s, l\) != t\) continue;",
     "if (!((step[l >> 6] >> (l & 63)) & 1)) continue;"),
    ("ret-no-successors",
     "a static walker ignores ret's return sites: vm_abssucc() gives a `ret` no successor, so "
     "--por's futures, the cycle proviso and the static discharge stop at every ret",
     ["vm/absint.c"],
     r"case VM_OP_ret: \*succp = vm_ret_sites\(b, pc, &n\); return n;",
     "case VM_OP_ret: return 0;"),
    ("ret-to-the-wrong-pc",
     "ret goes to the popped pc + 1: it skips the instruction after the call",
     ["vm/interp.c"],
     r"set_pc\(s, ts, to\);",
     "set_pc(s, ts, to + 1);"),
    ("por-waiter-always-deferred",
     "--por: a waiting thread is left out of the persistent set even when a thread outside it may notify it",
     ["reduce/ts/por.c"],
     r"if \(P->notif\[u\] & ~T\) break;",
     "if (P->notif[u] & ~T & 0) break;"),
    ("hb-join-orders-nothing",
     "the happens-before line of a lock_discipline report: a join orders nothing",
     ["tools/report/hb_trace.c"],
     r"\*from = \(uint32_t\)fx->obj, \*to = me;",
     "return false;"),
    ("por-read-only-fold-written",
     "--por: a start that reads a shared variable is folded even when some store writes it",
     ["reduce/ts/step.c"],
     r"return v->cls == VM_SHARED && !v->stored && v->init_body < 0;",
     "return v->cls == VM_SHARED && v->init_body < 0;"),
    ("ltl-label-successors-invisible",
     "--ltl: the instructions after a watched label stay invisible (a step runs on past it)",
     ["vm/props.c"],
     r"if \(succ\[q\] >= b->ncode \|\| b->code\[succ\[q\]\]\.in_block\) continue;",
     "if (1 || succ[q] >= b->ncode) continue;"),
    ("races-run-unbounded",
     "--scheduling=races: light nodes continue one thread for ever (a spin starves the others)",
     ["reduce/search/stateless_races.c"],
     r"#define RACES_MAX_RUN 8u",
     "#define RACES_MAX_RUN 4000000000u"),
    ("hint-hunt-keeps-j",
     "the hunt hint suggests --swarm 0 without saying to leave -j out (a usage error)",
     ["tools/report/hint_hunt.c"],
     r'if \(eo->workers\) drop\(sw, sizeof sw, "-j"\);',
     ";"),
    ("preemption-iterate-stops-at-depth",
     "--preemption-bound 0..K: a bound cut at --max-depth ends the search (the bound never rises)",
     ["reduce/search/stateless.c"],
     r"if \(!\(it\.pruned && \*kb < K\)\) return;",
     "return;"),
    ("shorten-depth-off-by-one",
     "--shorten: the breadth-first search goes as deep as the path (not shorter)",
     ["reduce/policy/shorten.c"],
     r"so\.max_depth = er->len - 1;",
     "so.max_depth = er->len;"),
    ("hb-spawn-reached-again",
     "Goldilocks's happens-before discharge: an access the thread can reach again after a spawn "
     "still counts as before it (issue 28)",
     ["lockset/discharge_hb.c"],
     r"if \(!reach\[h->acc\[a\]\.pc\]\) setbit\(h->nbspawn",
     "if (h->acc[a].pc + 1) setbit(h->nbspawn"),
    ("hb-join-any-child",
     "Goldilocks's happens-before discharge: a join of any thread counts as a join of every "
     "child spawned so far (issue 28)",
     ["lockset/discharge_hb.c"],
     r"if \(k >= 0 && F->opend\[k\] == PEND_ONE\) F->opend\[k\] = PEND_NONE;",
     "for (uint32_t i = 0; k >= -1 && i < F->nsl; i++) if (F->opend[i] == PEND_ONE) "
     "F->opend[i] = PEND_NONE;"),
    ("hb-send-any-time",
     "Goldilocks's happens-before discharge: a send on a channel orders an access even when the "
     "thread can reach the access again after the send (issue 28)",
     ["lockset/discharge_hb.c"],
     r"if \(h->sends\[s\]\.unit != A \|\| !getbit\(h->nbsend \+ \(size_t\)a \* h->dw, s\)\)",
     "if (h->sends[s].unit != A)"),
    ("atomic-lets-others-in",
     "an atomic block lets another thread in: --reduce=none ends the step after the block's `atomic` (issue 30)",
     ["reduce/ts/step_int.h"],
     r"if \(!compose && !code\[pc\]\.in_block\) break;",
     "if (!compose) break;"),
    ("atomic-guard-ignored",
     "a guarded atomic block is enabled whatever its assume says (issue 30)",
     ["vm/interp.c"],
     r"if \(!n \|\| !in->b\.val\) return n;",
     "if (!n || 1) return n;"),
    ("atomic-no-hidden-lock",
     "an atomic block holds no lock for the detectors: its accesses look unordered (issue 30)",
     ["vm/interp.c"],
     r"if \(take\) return HOOK\(h, acquire, s, tid, l\) \? VM_STOPPED : VM_OK;\n        return HOOK\(h, release, s, tid, l\) \? VM_STOPPED : VM_OK;",
     "return VM_OK;"),
    ("por-guard-no-enablers",
     "--por: a thread blocked by its atomic block's guard has no enablers (issue 30)",
     ["reduce/ts/por.c"],
     r"if \(in->b\.val\) return others;",
     "if (in->b.val) return 0;"),
    ("ziptrack-ls-bottom",
     "ZipTrack lockset (trace/slp_lockset.c): a pair (t, x) the right chunk does not access "
     "intersects with the empty set instead of the top (the public artifact's bug, notes A7 1b)",
     ["trace/slp_lockset.c"],
     r"uint64_t lc = cc \? cc->set\[w\] \| \(ab \? ab\[nw \+ w\] : 0\) : UINT64_MAX;",
     "uint64_t lc = cc ? cc->set[w] | (ab ? ab[nw + w] : 0) : 0;"),
    ("ziptrack-ls-open-unused",
     "ZipTrack lockset: the locks held across the seam (OpenRel_C > OpenAcq_B and the converse, "
     "eq. 12) are never added (the public artifact's bug, notes A7 1a)",
     ["trace/slp_lockset.c"],
     r"if \(cor > boa\) bit_set\(ab, l\);\s*if \(boa > cor\) bit_set\(ab \+ nw, l\);",
     "(void)ab;"),
    ("ziptrack-ls-witness-no-read-dummy",
     "ZipTrack lockset witness (trace/slp_lockset.c): the report point's own set leaves out the "
     "read-only dummy Λ, so the second descent names an earlier access than Eraser's",
     ["trace/slp_lockset.c"],
     r"if \(e2->op == TR_READ\) with\[",
     "if (0) with["),
    ("ziptrack-hb-no-fwd",
     "ZipTrack HB (trace/slp_hb.c): ALWr_A(x) for x written in B only is B's set, not pushed "
     "through C's AF (eq. 5's fwd dropped)",
     ["trace/slp_hb.c"],
     r"(tr_hb_var \*d = &o->wr\[k\];[\s\S]*?)union_rows\(iaf, nw, d->al, vb->al, C->af\);",
     r"\1(void)0;"),
    ("analyze-no-release-edge",
     "mcheck --analyze: a release's buffer is never read by the acquires (the lock sync edge "
     "dropped, issue 33)",
     ["analyze/sync_cfg.c"],
     r"if \(bf\.pc < nc\) ok = push\(&bufs, &bf\);",
     "if (bf.pc < nc && in->op != VM_OP_release) ok = push(&bufs, &bf);"),
    ("analyze-no-join-edge",
     "mcheck --analyze: a join imports nothing from the joined thread's end (issue 33)",
     ["analyze/sync_cfg.c"],
     r"if \(b->kind != BUF_END\) return false;",
     "if (b->kind != BUF_END || b->kind == BUF_END) return false;"),
    ("analyze-forget-store",
     "mcheck --analyze: a store to one shared element leaves the fact as it was (issue 33)",
     ["analyze/transfer.c"],
     r"assign_lin\(u, &f, an_dim_elem\(u, lo\), a, 0\);",
     "(void)a;"),
    ("analyze-no-wrap",
     "mcheck --analyze: values beyond the int32 range are compared as they are, not wrapped "
     "(issue 33)",
     ["analyze/transfer.c"],
     r"if \(lo >= INT32_MIN && hi <= INT32_MAX\) return;",
     "if (lo <= hi) return;"),
    ("analyze-region-own-only",
     "mcheck --analyze: a region's block mix keeps only the own fact's projection, not the "
     "buffers' (issue 33)",
     ["analyze/mix.c"],
     r"if \(v > D\[\(size_t\)a \* d \+ b\]\) D\[\(size_t\)a \* d \+ b\] = v;",
     "if (0 && v > D[(size_t)a * d + b]) D[(size_t)a * d + b] = v;"),
    ("analyze-summary-own-edge",
     "mcheck --analyze: a proc's summary drops its own buffers, which its other instances "
     "wrote (issue 33)",
     ["analyze/sync_cfg.c"],
     r"if \(bf->unit == ui && !u->summary\) \{",
     "if (bf->unit == ui) {"),
]


def edits(mutant):
    """The (file globs, pattern, replacement) edits of a mutant: its own,
    then any further ones (the optional sixth element)."""
    return [tuple(mutant[2:5])] + list(mutant[5] if len(mutant) > 5 else [])


def sh(cmd, cwd=None, timeout=None):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def copy_source(src, dst):
    """The files git knows of (tracked and untracked, not ignored), as they
    are on disk."""
    p = sh(["git", "-C", src, "ls-files", "-co", "--exclude-standard", "-z"])
    if p.returncode != 0:
        sys.exit(f"mutate.py: git ls-files failed in {src}: {p.stderr.strip()}")
    for rel in p.stdout.split("\0"):
        if not rel or not os.path.isfile(os.path.join(src, rel)):
            continue
        os.makedirs(os.path.dirname(os.path.join(dst, rel)) or dst, exist_ok=True)
        shutil.copy2(os.path.join(src, rel), os.path.join(dst, rel))


def locate(root, name, globs, pattern):
    """(path, text, match) of the one place the pattern matches; exits with
    a loud message when it matches none or several."""
    hits = []
    for g in globs:
        for path in sorted(glob.glob(os.path.join(root, g))):
            with open(path) as f:
                text = f.read()
            for m in re.finditer(pattern, text):
                hits.append((path, text, m))
    if len(hits) != 1:
        where = ", ".join(sorted({os.path.relpath(h[0], root) for h in hits}))
        sys.exit(f"mutation {name}: pattern not found in {', '.join(globs)}" if not hits else
                 f"mutation {name}: pattern matches {len(hits)} places ({where})")
    return hits[0]


def build(bdir, jobs):
    p = sh(["cmake", "--build", bdir, "-j", str(jobs)])
    return p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]


def run_ctest(bdir, jobs, regex):
    """Names of the failing tests, and the seconds taken."""
    t = time.time()
    cmd = ["ctest", "--no-tests=error", "-j", str(jobs)] + (["-R", regex] if regex else [])
    p = sh(cmd, cwd=bdir, timeout=3600)
    failed = re.findall(r"^\s*\d+ - (\S+) \(", p.stdout, re.M)
    if p.returncode != 0 and not failed:
        failed = ["(ctest failed: " + p.stdout.strip().splitlines()[-1] + ")"]
    return failed, time.time() - t


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", default=ROOT, help="the source tree (default: this checkout)")
    ap.add_argument("--only", help="comma-separated mutant names")
    ap.add_argument("--tests", help="ctest -R REGEX: run only these tests")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    ap.add_argument("--list", action="store_true", help="list the mutants and exit")
    opts = ap.parse_args()
    mutants = MUTANTS
    if opts.only:
        names = opts.only.split(",")
        unknown = set(names) - {m[0] for m in MUTANTS}
        if unknown:
            sys.exit(f"mutate.py: unknown mutants {sorted(unknown)}")
        mutants = [m for m in MUTANTS if m[0] in names]
    if opts.list:
        for m in mutants:
            print(f"{m[0]:24} {m[1]}")
        return 0

    work = tempfile.mkdtemp(prefix="mcheck-mutate-")
    src, bdir = os.path.join(work, "src"), os.path.join(work, "build")
    try:
        copy_source(os.path.abspath(opts.src), src)
        # every pattern is checked before anything is built
        for mutant in mutants:
            for globs, pattern, _ in edits(mutant):
                locate(src, mutant[0], globs, pattern)
        p = sh(["cmake", "-S", src, "-B", bdir, "-DCMAKE_BUILD_TYPE=Release"])
        if p.returncode != 0:
            sys.exit(f"mutate.py: cmake failed:\n{p.stderr[-2000:]}")
        ok, log = build(bdir, opts.jobs)
        if not ok:
            sys.exit(f"mutate.py: the unmutated copy does not build:\n{log}")
        failed, secs = run_ctest(bdir, opts.jobs, opts.tests)
        if failed:
            sys.exit(f"mutate.py: the unmutated suite fails ({', '.join(failed)}): "
                     f"fix that first")
        print(f"unmutated: every test passes ({secs:.0f} s)", flush=True)
        bad = 0
        rows = []
        for mutant in mutants:
            name, what = mutant[:2]
            saved = {}  # path -> its unmutated text
            try:
                for globs, pattern, repl in edits(mutant):
                    path, text, m = locate(src, name, globs, pattern)
                    saved.setdefault(path, text)
                    with open(path, "w") as f:
                        f.write(text[:m.start()] + m.expand(repl) + text[m.end():])
                ok, log = build(bdir, opts.jobs)
                if not ok:
                    bad += 1
                    rows.append((name, "BUILD FAILED", what))
                    print(f"{name}: the mutant does not build:\n{log}", flush=True)
                    continue
                failed, secs = run_ctest(bdir, opts.jobs, opts.tests)
                status = ("caught by " + ", ".join(failed)) if failed else "MISSED"
                if not failed:
                    bad += 1
                rows.append((name, status, what))
                print(f"{name}: {status} ({secs:.0f} s)", flush=True)
            finally:
                for path, text in saved.items():
                    with open(path, "w") as f:
                        f.write(text)
        # the unmutated sources restored: rebuild so --keep leaves a sane tree
        build(bdir, opts.jobs)
        print()
        print(f"{'mutant':24} {'result':50} bug")
        for name, status, what in rows:
            print(f"{name:24} {status:50} {what}")
        caught = sum(1 for r in rows if r[1].startswith("caught"))
        print(f"{caught} of {len(rows)} mutants caught")
        return 1 if bad else 0
    finally:
        if opts.keep:
            print(f"(scratch copy kept in {work})")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
