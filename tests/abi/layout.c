/*
 * layout.c - print the layout of corral.h's public structs and the values
 * of its enums, one "name offset size" / "name value" a line. Generated
 * once for version 0 (tests/abi/corral-0.layout is its output then);
 * install_abi.sh checks that every line of the baseline still holds:
 * fields are only appended, frozen structs keep their size, enum values
 * never change.
 */
#include <stddef.h>
#include <stdio.h>

#include "corral.h"

#define F(s, f)                                                                \
	printf("%s.%s %zu %zu\n", #s, #f, offsetof(struct s, f),               \
	       sizeof(((struct s *)0)->f))
#define E(v) printf("%s %ld\n", #v, (long)(v))

int main(void)
{
	/* Frozen: embedded in corral_config, or an array the library hands out.
	 */
	printf("sizeof.corral_frame %zu\n", sizeof(struct corral_frame));
	printf("sizeof.corral_sandbox_config %zu\n",
	       sizeof(struct corral_sandbox_config));
	F(corral_frame, ip);
	F(corral_frame, off);
	F(corral_frame, func);
	F(corral_frame, module);
	F(corral_event, type);
	F(corral_event, t);
	F(corral_event, pid);
	F(corral_event, ppid);
	F(corral_event, tgid);
	F(corral_event, nspid);
	F(corral_event, sig);
	F(corral_event, status);
	F(corral_event, core);
	F(corral_event, setup);
	F(corral_event, former);
	F(corral_event, path);
	F(corral_event, argv);
	F(corral_event, reason);
	F(corral_event, detail);
	F(corral_event, frames);
	F(corral_event, nframes);
	F(corral_event, error);
	F(corral_event, raw);
	F(corral_event, verdict);
	F(corral_sandbox_config, enabled);
	F(corral_sandbox_config, workspace);
	F(corral_sandbox_config, ro_binds);
	F(corral_sandbox_config, binds);
	F(corral_sandbox_config, share_net);
	F(corral_sandbox_config, bwrap);
	F(corral_config, size);
	F(corral_config, argv);
	F(corral_config, journal_path);
	F(corral_config, journal_fd);
	F(corral_config, self_argv);
	F(corral_config, timeout);
	F(corral_config, kill_after);
	F(corral_config, max_procs);
	F(corral_config, wait_all);
	F(corral_config, watch_parent);
	F(corral_config, handle_signals);
	F(corral_config, pty);
	F(corral_config, history);
	F(corral_config, stacks);
	F(corral_config, stack_budget);
	F(corral_config, escape);
	F(corral_config, sandbox);
	F(corral_config, on_event);
	F(corral_config, on_event_arg);
	F(corral_proc_info, pid);
	F(corral_proc_info, ppid);
	F(corral_proc_info, nspid);
	F(corral_proc_info, born);
	F(corral_proc_info, ended);
	F(corral_proc_info, nthreads);
	F(corral_proc_info, threads_seen);
	F(corral_proc_info, state);
	F(corral_proc_info, status);
	F(corral_proc_info, setup);
	F(corral_proc_info, path);
	F(corral_proc_info, argv);
	F(corral_proc_info, nexecs);
	F(corral_result, size);
	F(corral_result, exit_code);
	F(corral_result, status);
	F(corral_result, exec_failed);
	F(corral_result, exec_errno);
	F(corral_result, sandbox_failed);
	F(corral_result, reason);
	F(corral_result, term_signal);
	F(corral_result, processes);
	F(corral_result, threads);
	F(corral_result, execs);
	F(corral_result, killed);
	F(corral_result, survivors);
	F(corral_result, left);
	F(corral_result, unstopped);
	F(corral_result, stacks);
	F(corral_result, stacks_skipped);
	F(corral_result, escapes);
	F(corral_result, t_grace);
	F(corral_result, t_stop);
	F(corral_result, t_kill);
	F(corral_result, t_end);
	F(corral_probe, size);
	F(corral_probe, sandbox_ok);
	F(corral_probe, reason);
	F(corral_probe, yama_ptrace_scope);
	F(corral_probe, seccomp);
	F(corral_probe, ptrace);
	F(corral_probe, userns);
	F(corral_probe, userns_error);
	F(corral_probe, bwrap_found);
	F(corral_probe, bwrap_path);
	F(corral_probe, bwrap_version);
	F(corral_probe, bwrap_setuid);
	F(corral_probe, bwrap_works);
	F(corral_probe, bwrap_error);
	F(corral_probe, cgroup2);
	F(corral_probe, cgroup2_mount);
	F(corral_probe, is_root);
	E(CORRAL_EXIT_MAXPROCS);
	E(CORRAL_EXIT_ESCAPE);
	E(CORRAL_EXIT_TIMEOUT);
	E(CORRAL_EXIT_INTERNAL);
	E(CORRAL_EXIT_NOEXEC);
	E(CORRAL_EXIT_NOTFOUND);
	E(CORRAL_EV_START);
	E(CORRAL_EV_FORK);
	E(CORRAL_EV_VFORK);
	E(CORRAL_EV_CLONE);
	E(CORRAL_EV_THREAD);
	E(CORRAL_EV_EXEC);
	E(CORRAL_EV_SIGNAL);
	E(CORRAL_EV_STOP);
	E(CORRAL_EV_CONT);
	E(CORRAL_EV_EXIT);
	E(CORRAL_EV_LEFT);
	E(CORRAL_EV_ENDING);
	E(CORRAL_EV_DENIED);
	E(CORRAL_EV_ESCAPE);
	E(CORRAL_EV_STACK);
	E(CORRAL_EV_SNAPSHOT);
	E(CORRAL_EV_END);
	E(CORRAL_REASON_NONE);
	E(CORRAL_REASON_EXITED);
	E(CORRAL_REASON_TIMEOUT);
	E(CORRAL_REASON_SIGNAL);
	E(CORRAL_REASON_PARENT);
	E(CORRAL_REASON_MAXPROCS);
	E(CORRAL_REASON_ESCAPE);
	E(CORRAL_REASON_REQUEST);
	E(CORRAL_ESCAPE_OFF);
	E(CORRAL_ESCAPE_LOG);
	E(CORRAL_ESCAPE_DENY);
	E(CORRAL_ESCAPE_KILL);
	E(CORRAL_STACKS_TIMEOUT);
	E(CORRAL_STACKS_SIGNAL);
	E(CORRAL_STACKS_CRASH);
	E(CORRAL_STACKS_ESCAPE);
	E(CORRAL_STACKS_EXITLEFT);
	E(CORRAL_STACKS_SNAPSHOT);
	return 0;
}
