/*
 * corral.h - the whole of corral's API, for a program that supervises
 * (libcorral: `pkg-config --cflags --libs corral`).
 *
 * The API is split by audience (docs/api.md, "Headers"); this header
 * includes every part, so a program that included <corral.h> before the
 * split still compiles, unchanged:
 *
 *   <corral/common.h>      the version, exit codes, names of events,
 *                          reasons and signals, quoting, corral_open_file
 *   <corral/supervisor.h>  run a command under the supervisor: config,
 *                          events, the loop, the result, the live tree
 *   <corral/probe.h>       can the sandbox work on this host
 *   <corral/journal.h>     check a journal's digest chain (corral verify)
 *   <corral/report.h>      read a journal and show the run (corral report)
 *
 * A program that only reads or verifies journals includes the last two
 * and links libcorral-journal (`pkg-config --cflags --libs
 * corral-journal`), which needs neither libseccomp nor libunwind.
 */
#ifndef CORRAL_H
#define CORRAL_H

#include "corral/common.h"
#include "corral/journal.h"
#include "corral/probe.h"
#include "corral/report.h"
#include "corral/supervisor.h"

#endif
