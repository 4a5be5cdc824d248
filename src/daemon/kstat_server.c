/* The server's counters: /proc/net/rpc/nfsd (fs/nfsd/stats.c
 * nfsd_show, net/sunrpc/stats.c svc_seq_show) and the files of
 * /proc/sys/sunrpc/svc_rdma/, and the bounded read every kstat file goes
 * through. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "src/daemon/kstat.h"

ssize_t ks_read_file(const char *path, char *buf, size_t cap, enum ks_file f, struct ks_skips *sk)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0;

	if (fd < 0)
		return -errno;   /* not there: this host is not that side (not counted) */
	for (;;) {
		if (len + 1 >= cap) {
			char c;
			if (read(fd, &c, 1) > 0)
				sk->n[f][KS_WHY_TOO_LARGE]++;
			break;
		}
		ssize_t n = read(fd, buf + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			/* a mount gone mid-read: what was read is still whole lines */
			sk->n[f][KS_WHY_READ]++;
			close(fd);
			fd = -1;
			if (!len)
				return -e;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (fd >= 0)
		close(fd);
	/* a cut line at the end is not taken */
	if (len && buf[len - 1] != '\n') {
		char *nl = memrchr(buf, '\n', len);
		len = nl ? (size_t)(nl - buf) + 1 : 0;
	}
	buf[len] = 0;
	return (ssize_t)len;
}

static bool num(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	unsigned k = 0;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	while (s < end && *s >= '0' && *s <= '9' && k < 20) {
		unsigned d = (unsigned)(*s - '0');
		if (x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
		s++;
		k++;
	}
	if (!k || (s < end && *s != ' ' && *s != '\t'))
		return false;
	*p = s;
	*v = x;
	return true;
}

/* want counts of a line into v; false (counted) when it has fewer or a
 * word that is not one; more are a newer kernel's, not counted */
static bool counts(const char *p, const char *end, uint64_t *v, unsigned want, struct ks_skips *sk)
{
	for (unsigned i = 0; i < want; i++)
		if (!num(&p, end, &v[i])) {
			while (p < end && (*p == ' ' || *p == '\t'))
				p++;
			sk->n[KS_F_NFSD][p >= end ? KS_WHY_SHORT : KS_WHY_NUMBER]++;
			return false;
		}
	return true;
}

/* "proc3 N v0 .. vN-1": the count first, then that many */
static bool proc_line(const char *p, const char *end, uint64_t *v, unsigned *nv, struct ks_skips *sk)
{
	uint64_t n;

	if (!num(&p, end, &n)) {
		sk->n[KS_F_NFSD][KS_WHY_NUMBER]++;
		return false;
	}
	unsigned keep = n > KS_NFSD_PROCS ? KS_NFSD_PROCS : (unsigned)n;
	if (!counts(p, end, v, keep, sk))
		return false;
	if (n > KS_NFSD_PROCS)
		sk->n[KS_F_NFSD][KS_WHY_FULL]++;
	*nv = keep;
	return true;
}

void ks_nfsd_parse(const char *text, size_t len, struct ks_nfsd *out, struct ks_skips *sk)
{
	const char *p = text, *end = text + len;

	memset(out, 0, sizeof(*out));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *sp = memchr(p, ' ', (size_t)(le - p));
		size_t kl = sp ? (size_t)(sp - p) : (size_t)(le - p);
		const char *rest = sp ? sp : le;
#define KEY(s) (kl == sizeof(s) - 1 && !memcmp(p, s, kl))
		if (KEY("rc"))
			out->has_rc = counts(rest, le, out->rc, 3, sk);
		else if (KEY("fh"))
			out->has_fh = counts(rest, le, &out->fh_stale, 1, sk);
		else if (KEY("io"))
			out->has_io = counts(rest, le, out->io, 2, sk);
		else if (KEY("th"))
			out->has_th = counts(rest, le, &out->threads, 1, sk);
		else if (KEY("net"))
			out->has_net = counts(rest, le, out->net, 4, sk);
		else if (KEY("rpc"))
			out->has_rpc = counts(rest, le, out->rpc, 5, sk);
		else if (KEY("proc3"))
			out->has_proc3 = proc_line(rest, le, out->proc3, &out->nproc3, sk);
		else if (KEY("proc4ops"))
			out->has_proc4ops = proc_line(rest, le, out->proc4ops, &out->nproc4ops, sk);
		else if (!KEY("ra") && !KEY("proc2") && !KEY("proc4") && !KEY("wdeleg_getattr") && kl)
			sk->n[KS_F_NFSD][KS_WHY_UNKNOWN]++;
#undef KEY
		p = nl ? nl + 1 : end;
	}
}
