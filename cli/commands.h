/* commands.h - the sub-commands main.c dispatches to, one file each. */
#ifndef CORRAL_CLI_COMMANDS_H
#define CORRAL_CLI_COMMANDS_H

/*
 * Each takes the arguments from its own name on (argv[0] is "run", "ps",
 * ...) and returns corral's exit status.
 */
int corral_run_main(int argc, char **argv, char **self_argv); /* run.c */
int corral_ps_main(int argc, char **argv);		      /* ps.c */
int corral_probe_main(int argc, char **argv);		      /* probe.c */
int corral_report_main(int argc, char **argv);		      /* report.c */
int corral_verify_main(int argc, char **argv);		      /* verify.c */
int corral_diff_main(int argc, char **argv);		      /* diff.c */

#endif
