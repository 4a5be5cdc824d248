/* The SVG helpers every plot draws with (src/out/svg.h): time units at
 * both precisions the plots use, escaped text, the log axis's decades and
 * positions, and an operation's row (its box only when it has latencies,
 * the split bar's segments in proportion).  Expected values by hand from
 * printf's %g rules and the axis's definition. */
#include "tests/unit/check.h"

#include <unistd.h>

#include "src/out/svg.h"

static const char *name(unsigned ph) { return ph ? "b" : "a"; }
static const char *color(unsigned ph) { return ph ? "#222" : "#111"; }

/* f's text so far, NUL-terminated in buf; f is emptied for the next */
static const char *text_of(FILE *f, char *buf, size_t n)
{
	fflush(f);
	long len = ftell(f);
	rewind(f);
	size_t got = fread(buf, 1, n - 1, f);
	buf[got] = 0;
	CHECK(len >= 0 && (size_t)len == got, "read back %zu of %ld bytes", got, len);
	CHECK(ftruncate(fileno(f), 0) == 0, "truncate");
	rewind(f);
	return buf;
}

int main(void)
{
	char b[64], out[4096];

	CHECK_EQ_STR(svg_unit(7340031, SVG_UNIT_DIGITS, b, sizeof(b)), "7.34003ms");
	CHECK_EQ_STR(svg_unit(7340031, SVG_UNIT_DIGITS_SHORT, b, sizeof(b)), "7.34ms");
	CHECK_EQ_STR(svg_unit(100000, SVG_UNIT_DIGITS, b, sizeof(b)), "100us");
	CHECK_EQ_STR(svg_unit(1e9, SVG_UNIT_DIGITS_SHORT, b, sizeof(b)), "1s");
	CHECK_EQ_STR(svg_unit(999, SVG_UNIT_DIGITS, b, sizeof(b)), "999ns");
	CHECK_EQ_STR(svg_unit(123456789, SVG_UNIT_DIGITS_SHORT, b, sizeof(b)), "123ms");

	FILE *f = tmpfile();
	CHECK(f != NULL, "tmpfile");
	if (!f)
		return check_summary("svg");
	svg_text(f, "a<b>&\"c\"\x01\td");
	CHECK_EQ_STR(text_of(f, out, sizeof(out)), "a&lt;b&gt;&amp;&quot;c&quot;d");

	/* p50 2 ms .. max 30 ms: decades 1 ms .. 100 ms, 2 decades over 400 px */
	struct svg_axis ax;
	svg_axis_init(&ax, 100, 400);
	svg_axis_see(&ax, 2000000, 30000000);
	svg_axis_see(&ax, 0, 5000000);   /* a row without p50 widens nothing below */
	svg_axis_fit(&ax);
	CHECK(ax.dlo == 6 && ax.dhi == 8, "decades %g..%g, expected 6..8", ax.dlo, ax.dhi);
	CHECK(ax.lo == 2000000, "lo %g", ax.lo);
	CHECK(svg_axis_x(&ax, 1e6) == 100 && svg_axis_x(&ax, 1e7) == 300 && svg_axis_x(&ax, 1e8) == 500,
	      "decade positions %g %g %g", svg_axis_x(&ax, 1e6), svg_axis_x(&ax, 1e7), svg_axis_x(&ax, 1e8));
	CHECK(svg_axis_x(&ax, 0) == svg_axis_x(&ax, 1), "0 ns drawn at 1 ns");
	/* no row with a latency: 1 us .. 1 ms */
	struct svg_axis none;
	svg_axis_init(&none, 0, 300);
	svg_axis_fit(&none);
	CHECK(none.dlo == 3 && none.dhi == 6, "empty axis %g..%g, expected 3..6", none.dlo, none.dhi);

	/* a row: the box only with latencies; split 1:3 over 200 px */
	uint64_t ph[2] = { 1000, 3000 };
	struct svg_op_row row = { .key = "NFSv3 <READ>", .rpcs = 4, .timed = false, .p50 = 2000000,
				  .p90 = 3000000, .p99 = 4000000, .max = 5000000, .phase = ph, .nphase = 2,
				  .phase_name = name, .phase_color = color, .digits = SVG_UNIT_DIGITS };
	svg_op_row(f, &ax, 600, 200, 70, &row);
	text_of(f, out, sizeof(out));
	CHECK(strstr(out, "<g><title>NFSv3 &lt;READ&gt;: 4 RPCs, p50 2ms, p99 4ms, max 5ms</title>") != NULL, "%s", out);
	CHECK(strstr(out, "stroke=\"#333\"") == NULL, "no box without latencies: %s", out);
	CHECK(strstr(out, "<rect x=\"600.0\" y=\"77\" width=\"50.0\" height=\"16\" fill=\"#111\"><title>a 25.0%</title>") &&
	      strstr(out, "<rect x=\"650.0\" y=\"77\" width=\"150.0\" height=\"16\" fill=\"#222\"><title>b 75.0%</title>"),
	      "split segments: %s", out);
	row.timed = true;
	svg_op_row(f, &ax, 600, 200, 70, &row);
	text_of(f, out, sizeof(out));
	CHECK(strstr(out, "fill=\"#9ecae1\" stroke=\"#333\"") != NULL, "box with latencies: %s", out);
	CHECK(strstr(out, "#c00") == NULL, "no p99.9 tick unless asked: %s", out);
	fclose(f);
	return check_summary("svg");
}
