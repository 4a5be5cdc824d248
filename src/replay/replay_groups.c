/* --clients N: the whole capture replayed N times at once, by N
 * independent client groups, for load.  Each group is a process of its
 * own (its own connection, client IDs, sessions and maps: replay_run()
 * unchanged), rooted at the export's directory replay-gG so that what one
 * group creates, renames or removes does not collide with another's.  The
 * parent prints each group's report and their total. */
#include "src/replay/replay.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "src/base/json.h"
#include "src/base/log.h"

/* A group's report, as its process wrote it; JSON without its last
 * newline (it goes inside the groups array). */
static void copy_report(FILE *from, FILE *to, bool json)
{
	char buf[8192];
	size_t n;
	bool nl = false;

	rewind(from);
	while ((n = fread(buf, 1, sizeof(buf), from)) > 0) {
		if (nl)
			fputc('\n', to);
		nl = json && buf[n - 1] == '\n';
		fwrite(buf, 1, n - nl, to);
	}
}

int replay_groups_run(const struct replay_opts *o, FILE *out)
{
	uint32_t n = o->clients;
	struct replay_group_result *res = mmap(NULL, n * sizeof(*res), PROT_READ | PROT_WRITE,
					       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	FILE **rep = calloc(n, sizeof(*rep));
	pid_t *pid = calloc(n, sizeof(*pid));
	int worst = 0;

	if (res == MAP_FAILED || !rep || !pid) {
		log_error("replay: --clients %u: %s", n, strerror(ENOMEM));
		free(rep);
		free(pid);
		return REPLAY_EXIT_FAILED;
	}
	memset(res, 0, n * sizeof(*res));
	if (!o->allow_mutations && n > 1) {
		/* the groups' directories are made with --allow-mutations only;
		 * without it, a capture that changes state would be the groups'
		 * refusals, not their load */
		struct replay_opts probe = *o;
		probe.clients = 0;
		probe.probe_mutates = true;
		int r = replay_run(&probe, out);
		if (r != 0) {
			if (r == REPLAY_MUTATES)
				log_error("replay: --clients %u: %s changes state on the server; give "
					  "--allow-mutations (each group then works in its own directory "
					  "replay-gG of the export, made when missing), or replay it once",
					  n, o->trace);
			munmap(res, n * sizeof(*res));
			free(rep);
			free(pid);
			/* refused for want of --allow-mutations is 4, as a
			 * replay's refused calls and --generate write are */
			return r == REPLAY_MUTATES ? 4 : replay_exit_status(r);
		}
	}
	fflush(out);
	fflush(stderr);
	for (uint32_t g = 0; g < n; g++) {
		res[g].rc = REPLAY_EXIT_FAILED;   /* a group that never ran */
		if (!(rep[g] = tmpfile())) {
			log_error("replay: --clients: group %u: no temporary file: %s", g + 1, strerror(errno));
			continue;
		}
		pid[g] = fork();
		if (pid[g] == 0) {
			struct replay_opts go = *o;
			go.clients = 0;
			go.group = g + 1;
			go.result = &res[g];
			int rc = replay_run(&go, rep[g]);
			fflush(rep[g]);
			fflush(stderr);
			_exit(rc);
		}
		if (pid[g] < 0)
			log_error("replay: --clients: group %u: fork: %s", g + 1, strerror(errno));
	}
	for (uint32_t g = 0; g < n; g++) {
		int st;
		if (pid[g] > 0 && waitpid(pid[g], &st, 0) == pid[g] && WIFEXITED(st))
			res[g].rc = replay_exit_status(WEXITSTATUS(st));
		else
			res[g].rc = REPLAY_EXIT_FAILED;
		if (res[g].rc > worst)
			worst = res[g].rc;
	}
	struct replay_group_result tot = { 0 };
	for (uint32_t g = 0; g < n; g++) {
		tot.trace += res[g].trace;
		tot.replayed += res[g].replayed;
		tot.ok += res[g].ok;
		tot.mismatch += res[g].mismatch;
		tot.errors += res[g].errors;
		tot.unsupported += res[g].unsupported;
		tot.lost += res[g].lost;
		if (res[g].secs > tot.secs)
			tot.secs = res[g].secs;   /* the groups ran at once */
	}
	struct jw jb, *j = &jb;
	jw_init(j, out);
	if (o->json)
		jw_lit(j, "{\"groups\":[");
	for (uint32_t g = 0; g < n; g++) {
		if (o->json) {
			char dir[32];
			snprintf(dir, sizeof(dir), "replay-g%u", g + 1);
			jw_lit(j, g ? ",{\"group\":" : "{\"group\":");
			jw_u(j, g + 1);
			JW_KEY(j, "directory");
			jw_str(j, dir);
			JW_KEY(j, "made");
			jw_bool(j, res[g].made_dir);
			JW_KEY(j, "exit");
			jw_i(j, res[g].rc);
			JW_KEY(j, "report");
			long end = rep[g] ? (fseek(rep[g], 0, SEEK_END), ftell(rep[g])) : 0;
			if (end > 0) {
				/* the group's own report: one JSON object its replay wrote */
				jw_flush(j);
				copy_report(rep[g], out, true);
			} else {
				jw_null(j);
			}
			jw_c(j, '}');
		} else {
			fprintf(out, "== group %u (directory replay-g%u%s): exit %d\n", g + 1, g + 1,
				res[g].made_dir ? ", made" : "", res[g].rc);
			if (rep[g])
				copy_report(rep[g], out, false);
		}
		if (rep[g])
			fclose(rep[g]);
	}
	double cps = tot.secs > 0 ? (double)tot.replayed / tot.secs : 0;
	if (o->json) {
		static const char *const cn[] = { "trace", "replayed", "same_status", "mismatches", "errors",
						  "unsupported", "lost" };
		const uint64_t cv[] = { tot.trace, tot.replayed, tot.ok, tot.mismatch, tot.errors, tot.unsupported,
					tot.lost };
		jw_lit(j, "],\"total\":{\"groups\":");
		jw_u(j, n);
		JW_KEY(j, "exit");
		jw_i(j, worst);
		JW_KEY(j, "seconds");
		jw_fixed(j, tot.secs, 3);
		JW_KEY(j, "calls_per_s");
		jw_fixed(j, cps, 1);
		jw_counts(j, cn, cv, 7, true);
		jw_lit(j, "}}\n");
		jw_flush(j);
	} else {
		fprintf(out, "total of %u groups: %" PRIu64 " calls in the traces, %" PRIu64 " sent, %" PRIu64
			" same status, %" PRIu64 " mismatches, %" PRIu64 " errors, %" PRIu64 " unsupported, %"
			PRIu64 " lost; %.3f s, %.1f calls/s; exit %d\n", n, tot.trace, tot.replayed, tot.ok,
			tot.mismatch, tot.errors, tot.unsupported, tot.lost, tot.secs, cps, worst);
	}
	munmap(res, n * sizeof(*res));
	free(rep);
	free(pid);
	return worst;
}
