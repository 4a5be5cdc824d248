/* nfsrdma-top's interactive view: the rows of top_view.h drawn with ncurses,
 * keys to switch view, sort, filter and pause.  The only file that knows
 * the terminal, so the rest of top/ runs in batch mode and in tests. */
#include "src/top/top_screen.h"
#include "src/out/recfmt.h"

#include <locale.h>
#include <ncurses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/base/clock.h"
#include "src/base/log.h"
#include "src/top/top_fused.h"


enum { CP_HDR = 1, CP_SEL, CP_PH0 };   /* CP_PH0..CP_PH0+PH_N-1: phases */

static void help_screen(void)
{
	static const char *const lines[] = {
		"nfsrdma-top keys",
		"",
		"  o  operations        c  clients        s  servers        n  connections",
		"  f  fused split (joined RPCs) on/off    t  transport: all, rdma, tcp, udp",
		"  >  next sort column  <  previous       R  reverse order",
		"  /  filter rows (empty clears)          d  detail pane (slowest XIDs) on/off",
		"  p  pause (or space)  h  this help (or ?)                  q  quit",
		"",
		"fused split: % of the total, mean and p99 (RPCs at or above it); + merged into",
		"  the phase before it (a vantage missing), - not seen.  cq client_queue",
		"  cs client_send  out net_out  sq server_queue  pul pull  exe execute",
		"  rb reply_build  psh push  bck net_back  cd client_done (docs/record.md)",
		"",
		"split bar: c call  q queue (before the pull)  p pull (RDMA READ)  s server",
		"           S queue+server (no pull)  P push (RDMA WRITE)  w wait (before the reply)",
		"           r reply  (phases add up to the total: docs/record.md)",
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
			if (b[i] == top_phase_sym[k])
				p = k;
		if (p >= 0 && has_colors())
			attron(COLOR_PAIR(CP_PH0 + p));
		addch((chtype)(unsigned char)b[i]);
		if (p >= 0 && has_colors())
			attroff(COLOR_PAIR(CP_PH0 + p));
	}
}

/* One line of a fused row: its shares, three columns a phase. */
static void fused_shares(char *line, size_t len, const struct top_span *sp, unsigned n, bool tail)
{
	size_t o = strlen(line);

	for (unsigned p = 0; p < REC_FP_N && o < len; p++) {
		char c[8];
		int k = top_fused_span_at(sp, n, p);
		if (k < 0 || p != sp[k].first)
			snprintf(c, sizeof(c), "+");
		else if (!sp[k].bounded)
			snprintf(c, sizeof(c), "-");
		else
			snprintf(c, sizeof(c), "%.0f", tail ? sp[k].p99_pct : sp[k].mean_pct);
		o += (size_t)snprintf(line + o, len - o, " %3s", c);
	}
}

/* The fused split in place of the table: two lines a row, the mean's
 * split and the p99's. */
static void draw_fused(const struct top_view *v, const struct fsplit_snap *fs, int H, int W)
{
	char line[512], t1[32], vt[8];
	int fixed = 4 + 7 + 5 + 8 + 4 * REC_FP_N;
	int keyw = W - fixed < 10 ? 10 : W - fixed;
	static const char *const title[AGG_NDIM] = { "OPERATION", "CLIENT", "SERVER", "CONNECTION", "SERIES" };

	if (has_colors())
		attron(COLOR_PAIR(CP_HDR));
	attron(A_REVERSE);
	int l = snprintf(line, sizeof(line), "%-*.*s %-3s %6s %-4s %7s", keyw, keyw, title[top_fused_dim(v)], "VT",
			 "RPCS", "", "TOTAL");
	for (int p = 0; p < REC_FP_N && l > 0 && (size_t)l < sizeof(line); p++)
		l += snprintf(line + l, sizeof(line) - (size_t)l, " %3s", top_fphase_abbr[p]);
	mvaddnstr(3, 0, line, W);
	for (int x = (int)strlen(line); x < W; x++)
		addch(' ');
	attroff(A_REVERSE);
	if (has_colors())
		attroff(COLOR_PAIR(CP_HDR));
	if (!fs->have) {
		mvaddnstr(4, 0, "(this nfsrdmad speaks protocol 2.0: it sends no fused split)", W);
		return;
	}
	const struct fsplit_row **rows;
	size_t n = top_fused_rows(fs, v, &rows);
	int y = 4;
	for (size_t i = 0; i < n && y + 1 < H - 1; i++, y += 2) {
		const struct fsplit_row *r = rows[i];
		struct top_span sp[REC_FP_N];
		unsigned ns = top_fused_spans(r, sp);
		snprintf(vt, sizeof(vt), "%c%c%c", r->vantages & REC_VT_CLIENT ? 'c' : '-',
			 r->vantages & REC_VT_WIRE ? 'w' : '-', r->vantages & REC_VT_SERVER ? 's' : '-');
		snprintf(line, sizeof(line), "%-*.*s %-3s %6llu mean %7s", keyw, keyw, r->key, vt,
			 (unsigned long long)r->n, top_fmt_lat(r->sum / r->n, t1, sizeof(t1)));
		fused_shares(line, sizeof(line), sp, ns, false);
		mvaddnstr(y, 0, line, W);
		/* the verdict where the p99 line leaves the key's columns blank */
		char vd[200];
		snprintf(line, sizeof(line), "%-*.*s p99  %7s", keyw + 11, keyw + 11,
			 top_fused_verdict(r, false, vd, sizeof(vd)), top_fmt_lat(r->p99, t1, sizeof(t1)));
		fused_shares(line, sizeof(line), sp, ns, true);
		mvaddnstr(y + 1, 0, line, W);
	}
	if (!n)
		mvaddnstr(4, 0, fs->n ? "(no fused row matches the filter)" :
			  "(no fused RPCs yet: they come joined, from a collecting nfsrdmad)", W);
	else if (y < H - 1) {
		snprintf(line, sizeof(line), "fused RPCs %llu  unsplit %llu  overflow %llu  %% of total; "
			 "+ merged, - not seen", (unsigned long long)fs->rpcs,
			 (unsigned long long)fs->unsplit, (unsigned long long)fs->overflow);
		mvaddnstr(y, 0, line, W);
	}
	free(rows);
}

/* Row 0: the title, the time, the feed, and the probes' RPCs in flight
 * (a stalled server shows here while no record completes; a stall in
 * reverse video). */
static void draw_title(const struct agg_snap *s, const char *feed, bool paused, int W)
{
	char t1[32], line[512];
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(t1, sizeof(t1), "%H:%M:%S", &tm);
	attron(A_BOLD);
	snprintf(line, sizeof(line), "nfsrdma-top %s  %s%s", t1, feed, paused ? "  [PAUSED]" : "");
	mvaddnstr(0, 0, line, W);
	attroff(A_BOLD);
	if (!s)
		return;
	char fl[96];
	uint64_t stalled;
	int x = (int)strlen(line) + 2;
	top_inflight_text(s, fl, sizeof(fl), &stalled);
	if (!fl[0] || x >= W)
		return;
	mvaddnstr(0, x, fl, W - x);
	x += (int)strlen(fl) + 2;
	if (stalled && x < W) {
		snprintf(fl, sizeof(fl), "STALLED %llu", (unsigned long long)stalled);
		attron(A_REVERSE | A_BOLD);
		mvaddnstr(0, x, fl, W - x);
		attroff(A_REVERSE | A_BOLD);
	}
}

/* Line 1: the totals, the forward links, what the probes cost. */
static void draw_totals(const struct agg_snap *s, int W)
{
	char line[512];

	snprintf(line, sizeof(line),
		 "RPCs %llu  %.1f/s  err %llu  unanswered %llu  findings %llu  drops %llu  window %.0fs",
		 (unsigned long long)s->t.tot.records, s->rate, (unsigned long long)s->t.tot.errors,
		 (unsigned long long)s->t.tot.noreply, (unsigned long long)s->t.tot.findings,
		 (unsigned long long)(s->t.drops_queue + s->t.drops_source), s->win_s);
	/* forward links: how many peers, and what they dropped */
	uint64_t fwd_drops = 0, recs = 0;
	unsigned npeers = 0;
	for (unsigned i = 0; i < s->nlinks; i++) {
		fwd_drops += s->links[i].dropped + s->links[i].lost;
		recs += s->links[i].records;
		npeers += s->links[i].kind == 'C';
	}
	size_t ll = strlen(line);
	if (npeers)
		snprintf(line + ll, sizeof(line) - ll, "  forwarders %u (rcvd %llu, dropped %llu)", npeers,
			 (unsigned long long)recs, (unsigned long long)fwd_drops);
	else if (s->nlinks)
		snprintf(line + ll, sizeof(line) - ll, "  forward: sent %llu dropped %llu",
			 (unsigned long long)recs, (unsigned long long)fwd_drops);
	ll = strlen(line);
	if (s->has_probe_cost && s->probe_records)
		snprintf(line + ll, sizeof(line) - ll, "  probes %.1f us/RPC",
			 (double)s->probe_run_ns / 1e3 / (double)s->probe_records);
	mvaddnstr(1, 0, line, W);
}

/* The slowest RPCs (d): the split of each by its bar letters. */
static void draw_slowest(const struct top_view *v, const struct agg_snap *s, int H, int W, int detail_h)
{
	char t1[32], t2[32], line[512];

	int dy = H - 1 - detail_h;
	attron(A_REVERSE);
	snprintf(line, sizeof(line), "%-10s %4s %-22s %-15s %9s  split (letters as in the bar)", "SLOWEST XID",
		 "CONN", "OPERATION", "CLIENT", "TOTAL");
	mvaddnstr(dy, 0, line, W);
	for (int x = (int)strlen(line); x < W; x++)
		addch(' ');
	attroff(A_REVERSE);
	const struct agg_slow *o[AGG_SLOW_MAX];
	size_t k = top_view_slow(s, v, o);
	for (size_t i = 0; i < k && (int)i < detail_h - 1; i++) {
		/* in top_fmt_lat's unit for the total, boundaries
		 * rounded so the phases shown add up to it */
		uint64_t pr[PH_N], tot = dur_split_unit(top_lat_unit(o[i]->total), o[i]->total,
							 o[i]->phase, PH_N, pr);
		int len = snprintf(line, sizeof(line), "0x%08x %4u %-22.22s %-15.15s %9s ", o[i]->xid,
				   o[i]->conn, o[i]->op, o[i]->client, top_fmt_lat(tot, t1, sizeof(t1)));
		/* the phases that took time, by their bar letter */
		for (int p = 0; p < PH_N && len > 0 && (size_t)len < sizeof(line); p++)
			if (pr[p])
				len += snprintf(line + len, sizeof(line) - (size_t)len, " %c:%s",
						top_phase_sym[p], top_fmt_lat(pr[p], t2, sizeof(t2)));
		mvaddnstr(dy + 1 + (int)i, 0, line, W);
	}
}

/* No table: the reason in its place, one clause a line, wrapped, so a
 * long socket path hides neither the why nor the retry. */
static void draw_reason(const char *msg, int H, int W)
{
	int y = 5, w = W - 4;
	for (const char *p = msg; *p && y < H - 2;) {
		const char *semi = strstr(p, "; ");
		int len = semi ? (int)(semi - p) : (int)strlen(p);
		for (int off = 0; off < len && y < H - 2; y++) {
			int n = len - off;
			if (n > w) {   /* break after the last ": " that fits, else at a space */
				n = w;
				while (n > w / 3 && !(p[off + n] == ' ' && p[off + n - 1] == ':'))
					n--;
				if (n <= w / 3)
					for (n = w; n > w / 2 && p[off + n] != ' ';)
						n--;
			}
			mvaddnstr(y, 2, p + off, n);
			off += n;
			while (off < len && p[off] == ' ')
				off++;
		}
		p = semi ? semi + 2 : p + len;
	}
}

static void draw(const struct top_view *v, const struct agg_snap *s, const struct fsplit_snap *fs, const char *feed,
		 const char *msg, bool paused, bool detail)
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
	draw_title(s, feed, paused, W);
	if (s)
		draw_totals(s, W);
	top_view_line(v, line, sizeof(line) - 16);
	strcat(line, "   h: help");
	mvaddnstr(2, 0, line, W);
	if (v->fused) {
		if (s)
			draw_fused(v, fs, H, W);
		goto status;
	}

	int fixed = 8 + 8 + 6 + 8 + 8 + 8 + 7;   /* numeric columns and their spaces */
	int keyw = (W - fixed) * 60 / 100;
	if (keyw < 16)
		keyw = 16;
	int barw = W - fixed - keyw;
	int detail_h = detail && H >= 16 ? 7 : 0;
	/* operations: which phase holds the mean and the p99 of the first rows */
	int diag_h = v->dim == AGG_OP && H >= 30 ? 4 : 0;   /* 80x24 keeps its rows */
	int table_end = H - 1 - detail_h - diag_h;   /* last line: messages */

	if (has_colors())
		attron(COLOR_PAIR(CP_HDR));
	attron(A_REVERSE);
	snprintf(line, sizeof(line), "%-*.*s %8s %8s %6s %8s %8s %8s %-*s", keyw, keyw, top_dim_title[v->dim],
		 "RATE/s", "RPCS", "ERR", "P50", "P99", "MAX", barw > 0 ? barw : 0, "SPLIT (h: letters)");
	mvaddnstr(3, 0, line, W);
	for (int x = (int)strlen(line); x < W; x++)
		addch(' ');
	attroff(A_REVERSE);
	if (has_colors())
		attroff(COLOR_PAIR(CP_HDR));

	if (s) {
		const struct agg_row **rows;
		size_t n = top_view_rows(s, v, &rows);
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
			mvaddnstr(4, 0, v->filter[0] ? "(no row matches the filter)" : "(no RPCs yet)", W);
		if (diag_h) {
			int dy = table_end;
			attron(A_REVERSE);
			snprintf(line, sizeof(line), "%-*s", W < (int)sizeof(line) ? W : (int)sizeof(line) - 1,
				 "DIAGNOSIS  the phase holding most of the p99 (RPCs at or above it) and of the mean");
			mvaddnstr(dy, 0, line, W);
			attroff(A_REVERSE);
			for (size_t i = 0, k = 0; i < n && k + 1 < (size_t)diag_h; i++) {
				char b[160];
				if (!top_diag_line(rows[i], b, sizeof(b)))
					continue;
				snprintf(line, sizeof(line), "%-*.*s %s", keyw, keyw, rows[i]->key, b);
				mvaddnstr(dy + 1 + (int)k++, 0, line, W);
			}
		}
		free(rows);
		if (detail_h)
			draw_slowest(v, s, H, W, detail_h);
	}
status:
	if (!s && msg && *msg)
		draw_reason(msg, H, W);
	if (msg && *msg) {
		attron(A_BOLD);
		mvaddnstr(H - 1, 0, msg, W);
		attroff(A_BOLD);
	}
	refresh();
}

static void prompt_filter(struct top_view *v)
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
	snprintf(v->filter, sizeof(v->filter), "%s", buf);
}

int top_screen_run(struct top_view *v, struct top_feed *f, double delay, volatile sig_atomic_t *quit)
{
	static const enum agg_dim views[] = { AGG_OP, AGG_CLIENT, AGG_SERVER, AGG_CONN };
	struct agg_snap snap;
	struct fsplit_snap fsnap = { 0 };
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
		/* waits red: where queueing shows */
		static const short col[PH_N] = { COLOR_CYAN, COLOR_RED, COLOR_YELLOW, COLOR_GREEN, COLOR_GREEN,
						 COLOR_MAGENTA, COLOR_RED, COLOR_BLUE };
		for (int p = 0; p < PH_N; p++)
			init_pair((short)(CP_PH0 + p), col[p], -1);
	}
	while (!*quit) {
		uint64_t now = clock_mono_ns();
		if (now >= next && !paused) {
			if (have) {
				agg_snap_free(&snap);
				fsplit_snap_free(&fsnap);
			}
			char err[400];
			bool ended = top_feed_ended(f);   /* before the snapshot: it then holds everything */
			have = top_feed_snapshot(f, &snap, &fsnap, err, sizeof(err)) == 0;
			if (!have)
				snprintf(msg, sizeof(msg), "%s", err);   /* why, and when the next try is */
			else if (ended)
				snprintf(msg, sizeof(msg), "end of capture: final totals (q quits)");
			else
				msg[0] = 0;
			next = now + (uint64_t)(delay * 1e9);
			draw(v, have ? &snap : NULL, &fsnap, top_feed_name(f), msg, paused, detail);
		}
		/* feed the standalone sources in short slices so keys stay responsive */
		top_feed_run(f, clock_mono_ns() + 50000000ull);
		timeout(0);
		int ch = getch();
		if (ch == ERR)
			continue;
		bool redraw = true;
		switch (ch) {
		case 'q': case 'Q': *quit = 1; break;
		case 'o': case '1': v->dim = views[0]; break;
		case 'c': case '2': v->dim = views[1]; break;
		case 's': case '3': v->dim = views[2]; break;
		case 'n': case '4': v->dim = views[3]; break;
		case '>': v->sort = (enum top_sort)((v->sort + 1) % SORT_N); break;
		case '<': v->sort = (enum top_sort)((v->sort + SORT_N - 1) % SORT_N); break;
		case 'R': v->reverse = !v->reverse; break;
		case '/': prompt_filter(v); break;
		case 'p': case ' ': paused = !paused; break;
		case 'd': detail = !detail; break;
		case 'f': v->fused = !v->fused; break;
		case 't': v->transport = v->transport + 1 < REC_TR_N ? v->transport + 1 : -1; break;
		case 'h': case '?': help_screen(); break;
		case KEY_RESIZE: break;
		default: redraw = false; break;
		}
		if (redraw)
			draw(v, have ? &snap : NULL, &fsnap, top_feed_name(f), msg, paused, detail);
	}
	if (have) {
		agg_snap_free(&snap);
		fsplit_snap_free(&fsnap);
	}
	endwin();
	return 0;
}
