/* nfsrdma-top: top for NFS over RDMA.  Reads the daemon's socket, or runs
 * its own sources (-r FILE, --source kernel, --source xdp:IF); draws with
 * ncurses, or prints batches (-b) as text or JSON. */
#include <errno.h>
#include <locale.h>
#include <ncurses.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/base/log.h"
#include "src/base/opt.h"
#include "src/top/top_feed.h"
#include "src/top/top_view.h"

#define MAX_SPECS 16

enum { K_SOCKET = 256, K_SPEED, K_JSON, K_VIEW, K_SORT, K_FILTER };

static const struct opt opts[] = {
	{ "socket", 0, "PATH", "the daemon's control socket (default /run/nfsrdmad.sock)", K_SOCKET },
	{ "read", 'r', "FILE", "standalone: read this capture (same as --source pcap:FILE)", 'r' },
	{ "source", 0, "SPEC", "standalone: pcap:FILE | live:IFACE | kernel | xdp:IFACE (repeatable)", 'S' },
	{ "speed", 0, "X", "capture files: 0 = flat out (default), 1 = recorded pace", K_SPEED },
	{ "batch", 'b', NULL, "batch mode: print snapshots as text, no terminal needed", 'b' },
	{ "iterations", 'n', "N", "batch: stop after N snapshots (default 0: forever)", 'n' },
	{ "delay", 'd', "S", "seconds between refreshes (default 1)", 'd' },
	{ "json", 0, NULL, "batch mode with one JSON object per snapshot", K_JSON },
	{ "view", 0, "op|client|server|conn", "the table's rows (default op)", K_VIEW },
	{ "sort", 0, "KEY", "records, rate, errors, p50, p99, max, key (default records)", K_SORT },
	{ "filter", 0, "TEXT", "only rows whose key contains TEXT", K_FILTER },
	OPT_END
};

struct cli {
	const char *socket;
	const char *specs[MAX_SPECS];
	char *owned[MAX_SPECS];
	unsigned nspecs;
	double speed, delay;
	bool batch, json;
	uint64_t iterations;
	struct top_view v;
};

static int add_spec(struct cli *c, const char *spec, bool file)
{
	if (c->nspecs == MAX_SPECS) {
		log_error("at most %d sources", MAX_SPECS);
		return -E2BIG;
	}
	if (file) {
		size_t n = strlen(spec) + 6;
		char *s = malloc(n);
		if (!s)
			return -ENOMEM;
		snprintf(s, n, "pcap:%s", spec);
		c->owned[c->nspecs] = s;
		spec = s;
	}
	c->specs[c->nspecs++] = spec;
	return 0;
}

static int handle(int key, const char *arg, void *ctx)
{
	struct cli *c = ctx;
	uint64_t v;
	int d;

	switch (key) {
	case K_SOCKET: c->socket = arg; break;
	case 'r': return add_spec(c, arg, true);
	case 'S': return add_spec(c, arg, false);
	case K_SPEED: return opt_double("speed", arg, 0, 1e6, &c->speed) ? -EINVAL : 0;
	case 'b': c->batch = true; break;
	case 'n':
		if (opt_u64("iterations", arg, 0, UINT32_MAX, &v))
			return -EINVAL;
		c->iterations = v;
		break;
	case 'd': return opt_double("delay", arg, 0.05, 3600, &c->delay) ? -EINVAL : 0;
	case K_JSON: c->json = c->batch = true; break;
	case K_VIEW:
		if ((d = top_dim_parse(arg)) < 0 || d == AGG_SERIES) {
			log_error("--view: '%s' is not one of op, client, server, conn", arg);
			return -EINVAL;
		}
		c->v.dim = (enum agg_dim)d;
		break;
	case K_SORT:
		if ((d = top_sort_parse(arg)) < 0) {
			log_error("--sort: '%s' is not one of records, rate, errors, p50, p99, max, key", arg);
			return -EINVAL;
		}
		c->v.sort = (enum top_sort)d;
		break;
	case K_FILTER: snprintf(c->v.filter, sizeof(c->v.filter), "%s", arg); break;
	default: return -EINVAL;
	}
	return 0;
}

/* ---- batch ---- */

static volatile sig_atomic_t quit_flag;
static void on_signal(int sig) { quit_flag = 1; }

static int run_batch(struct cli *c, struct top_feed *f)
{
	char err[512];
	uint64_t ok = 0, i;

	/* SIGINT/SIGTERM only set quit_flag (the screen must be restored
	 * in the ncurses view): batch mode stops at the next snapshot */
	for (i = 0; !quit_flag && (!c->iterations || i < c->iterations); i++) {
		top_feed_run(f, top_mono_ns() + (uint64_t)(c->delay * 1e9));
		struct agg_snap s;
		if (top_feed_snapshot(f, &s, err, sizeof(err)) < 0) {
			log_error("%s", err);
			continue;
		}
		ok++;
		if (c->json)
			top_batch_json(stdout, &s, &c->v, top_feed_name(f));
		else
			top_batch_text(stdout, &s, &c->v, top_feed_name(f));
		agg_snap_free(&s);
	}
	return ok ? 0 : 1;
}

/* ---- ncurses ---- */

enum { CP_HDR = 1, CP_SEL, CP_PH0 };   /* CP_PH0..CP_PH0+4: phases */

static void help_screen(void)
{
	static const char *const lines[] = {
		"nfsrdma-top keys",
		"",
		"  o  operations        c  clients        s  servers        n  connections",
		"  >  next sort column  <  previous       R  reverse order",
		"  /  filter rows (empty clears)          d  detail pane (slowest XIDs) on/off",
		"  p  or space: pause   h or ?: this help q  quit",
		"",
		"split bar: c call (inline send)  R RDMA READ (argument pull)  s server",
		"           W RDMA WRITE (result push)  r reply (inline send)",
		"",
		"any key returns",
	};
	erase();
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		mvaddnstr((int)i + 1, 1, lines[i], COLS - 2);
	refresh();
	timeout(-1);
	getch();
}

static void bar(int y, int x, const struct agg_row *r, int width)
{
	static const char sym[PH_N] = { 'c', 'R', 's', 'W', 'r' };
	char b[256];

	if (width <= 0)
		return;
	if (width > 255)
		width = 255;
	top_split_bar(r, b, (size_t)width);
	move(y, x);
	for (int i = 0; i < width && b[i]; i++) {
		int p = -1;
		for (int k = 0; k < PH_N; k++)
			if (b[i] == sym[k])
				p = k;
		if (p >= 0 && has_colors())
			attron(COLOR_PAIR(CP_PH0 + p));
		addch((chtype)(unsigned char)b[i]);
		if (p >= 0 && has_colors())
			attroff(COLOR_PAIR(CP_PH0 + p));
	}
}

static void draw(const struct cli *c, const struct agg_snap *s, const char *feed, const char *msg,
		 bool paused, bool detail)
{
	int H, W;
	char t1[32], t2[32], t3[32], line[512];

	getmaxyx(stdscr, H, W);
	erase();
	if (H < 6 || W < 40) {
		mvaddnstr(0, 0, "nfsrdma-top: terminal too small", W);
		refresh();
		return;
	}
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	strftime(t1, sizeof(t1), "%H:%M:%S", &tm);
	attron(A_BOLD);
	snprintf(line, sizeof(line), "nfsrdma-top %s  %s%s", t1, feed, paused ? "  [PAUSED]" : "");
	mvaddnstr(0, 0, line, W);
	attroff(A_BOLD);
	if (s) {
		snprintf(line, sizeof(line),
			 "RPCs %llu  %.1f/s  err %llu  no-reply %llu  findings %llu  drops %llu  window %.0fs",
			 (unsigned long long)s->t.tot.records, s->rate, (unsigned long long)s->t.tot.errors,
			 (unsigned long long)s->t.tot.noreply, (unsigned long long)s->t.tot.findings,
			 (unsigned long long)(s->t.drops_queue + s->t.drops_source), s->win_s);
		mvaddnstr(1, 0, line, W);
	}
	snprintf(line, sizeof(line), "view %s  sort %s%s%s%s   h: help", agg_dim_name[c->v.dim],
		 top_sort_name[c->v.sort], c->v.reverse ? " (rev)" : "", c->v.filter[0] ? "  filter: " : "",
		 c->v.filter);
	mvaddnstr(2, 0, line, W);

	int fixed = 8 + 8 + 6 + 8 + 8 + 8 + 7;   /* numeric columns and their spaces */
	int keyw = (W - fixed) * 60 / 100;
	if (keyw < 16)
		keyw = 16;
	int barw = W - fixed - keyw;
	int detail_h = detail && H >= 16 ? 7 : 0;
	int table_end = H - 1 - detail_h;   /* last line: messages */

	if (has_colors())
		attron(COLOR_PAIR(CP_HDR));
	attron(A_REVERSE);
	snprintf(line, sizeof(line), "%-*.*s %8s %8s %6s %8s %8s %8s %-*s", keyw, keyw, top_dim_title[c->v.dim],
		 "RATE/s", "RPCS", "ERR", "P50", "P99", "MAX", barw > 0 ? barw : 0, "SPLIT c/R/s/W/r");
	mvaddnstr(3, 0, line, W);
	for (int x = (int)strlen(line); x < W; x++)
		addch(' ');
	attroff(A_REVERSE);
	if (has_colors())
		attroff(COLOR_PAIR(CP_HDR));

	if (s) {
		const struct agg_row **rows;
		size_t n = top_view_rows(s, &c->v, &rows);
		int y = 4;
		for (size_t i = 0; i < n && y < table_end; i++, y++) {
			const struct agg_row *r = rows[i];
			snprintf(line, sizeof(line), "%-*.*s %8.1f %8llu %6llu %8s %8s %8s ", keyw, keyw, r->key,
				 r->rate, (unsigned long long)r->tot.records, (unsigned long long)r->tot.errors,
				 top_fmt_lat(r->p50, t1, sizeof(t1)), top_fmt_lat(r->p99, t2, sizeof(t2)),
				 top_fmt_lat(r->max, t3, sizeof(t3)));
			mvaddnstr(y, 0, line, W);
			bar(y, (int)strlen(line), r, W - (int)strlen(line));
		}
		if (!n)
			mvaddnstr(4, 0, c->v.filter[0] ? "(no row matches the filter)" : "(no RPCs yet)", W);
		free(rows);
		if (detail_h) {
			int dy = H - 1 - detail_h;
			attron(A_REVERSE);
			snprintf(line, sizeof(line), "%-10s %4s %-22s %-15s %9s  split c/R/s/W/r", "SLOWEST XID",
				 "CONN", "OPERATION", "CLIENT", "TOTAL");
			mvaddnstr(dy, 0, line, W);
			for (int x = (int)strlen(line); x < W; x++)
				addch(' ');
			attroff(A_REVERSE);
			const struct agg_slow *o[AGG_SLOW_MAX];
			size_t k = 0;
			for (size_t i = 0; i < s->nslow; i++)
				if (!c->v.filter[0] || strcasestr(s->slow[i].op, c->v.filter) ||
				    strcasestr(s->slow[i].client, c->v.filter) || strcasestr(s->slow[i].server, c->v.filter))
					o[k++] = &s->slow[i];
			for (size_t i = 1; i < k; i++)
				for (size_t j = i; j > 0 && o[j]->total > o[j - 1]->total; j--) {
					const struct agg_slow *tmp = o[j];
					o[j] = o[j - 1];
					o[j - 1] = tmp;
				}
			for (size_t i = 0; i < k && (int)i < detail_h - 1; i++) {
				char ph[5][16];
				for (int p = 0; p < PH_N; p++)
					top_fmt_lat(o[i]->phase[p], ph[p], sizeof(ph[p]));
				snprintf(line, sizeof(line), "0x%08x %4u %-22.22s %-15.15s %9s  %s/%s/%s/%s/%s", o[i]->xid,
					 o[i]->conn, o[i]->op, o[i]->client, top_fmt_lat(o[i]->total, t1, sizeof(t1)),
					 ph[0], ph[1], ph[2], ph[3], ph[4]);
				mvaddnstr(dy + 1 + (int)i, 0, line, W);
			}
		}
	}
	if (msg && *msg)
		mvaddnstr(H - 1, 0, msg, W);
	refresh();
}

static void prompt_filter(struct cli *c)
{
	char buf[64] = "";

	mvaddstr(LINES - 1, 0, "filter: ");
	clrtoeol();
	echo();
	curs_set(1);
	timeout(-1);
	getnstr(buf, (int)sizeof(buf) - 1);
	noecho();
	curs_set(0);
	snprintf(c->v.filter, sizeof(c->v.filter), "%s", buf);
}

static int run_ui(struct cli *c, struct top_feed *f)
{
	static const enum agg_dim views[] = { AGG_OP, AGG_CLIENT, AGG_SERVER, AGG_CONN };
	struct agg_snap snap;
	bool have = false, paused = false, detail = true;
	char msg[512] = "";
	uint64_t next = 0;

	setlocale(LC_ALL, "");
	if (!initscr()) {
		log_error("cannot start the terminal (try -b)");
		return 1;
	}
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	if (has_colors()) {
		start_color();
		use_default_colors();
		init_pair(CP_HDR, COLOR_BLACK, COLOR_CYAN);
		init_pair(CP_SEL, COLOR_BLACK, COLOR_WHITE);
		init_pair(CP_PH0 + 0, COLOR_CYAN, -1);
		init_pair(CP_PH0 + 1, COLOR_YELLOW, -1);
		init_pair(CP_PH0 + 2, COLOR_GREEN, -1);
		init_pair(CP_PH0 + 3, COLOR_MAGENTA, -1);
		init_pair(CP_PH0 + 4, COLOR_BLUE, -1);
	}
	while (!quit_flag) {
		uint64_t now = top_mono_ns();
		if (now >= next && !paused) {
			if (have)
				agg_snap_free(&snap);
			char err[400];
			have = top_feed_snapshot(f, &snap, err, sizeof(err)) == 0;
			if (have)
				msg[0] = 0;
			else
				snprintf(msg, sizeof(msg), "%s (retrying)", err);
			next = now + (uint64_t)(c->delay * 1e9);
			draw(c, have ? &snap : NULL, top_feed_name(f), msg, paused, detail);
		}
		/* feed the standalone sources in short slices so keys stay responsive */
		top_feed_run(f, top_mono_ns() + 50000000ull);
		timeout(0);
		int ch = getch();
		if (ch == ERR)
			continue;
		bool redraw = true;
		switch (ch) {
		case 'q': case 'Q': quit_flag = 1; break;
		case 'o': case '1': c->v.dim = views[0]; break;
		case 'c': case '2': c->v.dim = views[1]; break;
		case 's': case '3': c->v.dim = views[2]; break;
		case 'n': case '4': c->v.dim = views[3]; break;
		case '>': c->v.sort = (enum top_sort)((c->v.sort + 1) % SORT_N); break;
		case '<': c->v.sort = (enum top_sort)((c->v.sort + SORT_N - 1) % SORT_N); break;
		case 'R': c->v.reverse = !c->v.reverse; break;
		case '/': prompt_filter(c); break;
		case 'p': case ' ': paused = !paused; break;
		case 'd': detail = !detail; break;
		case 'h': case '?': help_screen(); break;
		case KEY_RESIZE: break;
		default: redraw = false; break;
		}
		if (redraw)
			draw(c, have ? &snap : NULL, top_feed_name(f), msg, paused, detail);
	}
	if (have)
		agg_snap_free(&snap);
	endwin();
	return 0;
}

int main(int argc, char **argv)
{
	struct cli c = { .socket = "/run/nfsrdmad.sock", .delay = 1.0 };
	struct opt_spec spec = {
		.prog = "nfsrdma-top",
		.synopsis = "[OPTIONS]   (no source: read nfsrdmad's socket)",
		.summary = "Live per-operation, per-client and per-connection view of NFS over RDMA, "
			   "with where the time goes.",
		.opts = opts, .handle = handle, .ctx = &c,
	};
	struct top_feed *f = NULL;
	int rc;

	log_init(argv[0], LOG_WARN);
	if ((rc = opt_parse(&spec, argc, argv)) < 0)
		return 2;
	if (rc < argc) {
		log_error("unexpected argument '%s' (capture files go after -r)", argv[rc]);
		return 2;
	}
	if (c.nspecs) {
		char err[512];
		struct source_opts so = { .speed = c.speed, .snaplen = 65535, .sample = 1 };
		if (top_feed_standalone(&f, c.specs, c.nspecs, &so, err, sizeof(err)) < 0) {
			log_error("%s", err);
			return 1;
		}
	} else if (!(f = top_feed_daemon(c.socket))) {
		log_error("out of memory");
		return 1;
	}
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	rc = c.batch ? run_batch(&c, f) : run_ui(&c, f);
	top_feed_free(f);
	for (unsigned i = 0; i < c.nspecs; i++)
		free(c.owned[i]);
	return rc;
}
