/* Checks of the forwarding options and the CURVE key files (fwd_link.h).
 * Key files hold Z85 text, as zmq_curve_keypair makes it: a secret key
 * file one key, an allow-list file one public key per line (a line whose
 * first non-blank is '#' is a comment). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/daemon/fwd_link.h"
#include "src/daemon/fwd_priv.h"
#include "src/daemon/zmq_dl.h"

/* "HOST:PORT" or "[V6]:PORT" into host/port; 0 or -EINVAL. */
int fwd_split(const char *spec, char *host, size_t hostlen, unsigned *port)
{
	const char *p;
	size_t hl;

	if (!spec)
		return -EINVAL;
	if (spec[0] == '[') {
		const char *e = strchr(spec, ']');
		if (!e || e[1] != ':')
			return -EINVAL;
		hl = (size_t)(e - spec - 1);
		if (hl >= hostlen)
			return -EINVAL;
		memcpy(host, spec + 1, hl);
		p = e + 2;
	} else {
		const char *c = strrchr(spec, ':');
		if (!c)
			return -EINVAL;
		hl = (size_t)(c - spec);
		if (hl >= hostlen)
			return -EINVAL;
		memcpy(host, spec, hl);
		p = c + 1;
	}
	host[hl] = 0;
	char *end;
	long v = strtol(p, &end, 10);
	if (!*p || *end || v < 1 || v > 65535)
		return -EINVAL;
	*port = (unsigned)v;
	return 0;
}

int fwd_check_forward(const char *spec, char *err, size_t errlen)
{
	char host[256];
	unsigned port;

	if (fwd_split(spec, host, sizeof(host), &port) < 0 || !host[0] || strchr(host, '/')) {
		snprintf(err, errlen, "%s: not HOST:PORT", spec);
		return -EINVAL;
	}
	return 0;
}

/* Normalizes a numeric address (so the allow-list and ZeroMQ's peer
 * addresses compare as text): 0, or -EINVAL. */
int fwd_norm_addr(const char *in, char *out, size_t outlen, bool *wildcard)
{
	unsigned char b[16];

	if (inet_pton(AF_INET, in, b) == 1) {
		if (wildcard)
			*wildcard = !memcmp(b, "\0\0\0\0", 4);
		return inet_ntop(AF_INET, b, out, (socklen_t)outlen) ? 0 : -EINVAL;
	}
	if (inet_pton(AF_INET6, in, b) == 1) {
		static const unsigned char zero[16];
		if (wildcard)
			*wildcard = !memcmp(b, zero, 16);
		return inet_ntop(AF_INET6, b, out, (socklen_t)outlen) ? 0 : -EINVAL;
	}
	return -EINVAL;
}

int fwd_check_collect(const char *spec, bool any, char *err, size_t errlen)
{
	char host[256], norm[64];
	unsigned port;
	bool wild = false;

	if (fwd_split(spec, host, sizeof(host), &port) < 0) {
		snprintf(err, errlen, "%s: not ADDR:PORT", spec);
		return -EINVAL;
	}
	if (!strcmp(host, "*") || !host[0])
		wild = true;
	else if (fwd_norm_addr(host, norm, sizeof(norm), &wild) < 0) {
		snprintf(err, errlen, "%s: not ADDR:PORT (ADDR is a numeric IPv4 or IPv6 address)", spec);
		return -EINVAL;
	}
	if (wild && !any) {
		snprintf(err, errlen, "%s: a wildcard address listens on every interface; "
			 "name one address, or add --collect-any", spec);
		return -EINVAL;
	}
	return 0;
}

int fwd_check_addr(const char *addr, char *err, size_t errlen)
{
	char norm[64];
	bool wild;

	if (fwd_norm_addr(addr, norm, sizeof(norm), &wild) < 0 || wild) {
		snprintf(err, errlen, "%s: not a numeric IPv4 or IPv6 peer address", addr);
		return -EINVAL;
	}
	return 0;
}

/* Reads the Z85 keys of path (one per line, '#' comments) into keys
 * (40 characters + NUL each); returns how many, or -errno with err set. */
int fwd_read_keys(const char *path, char (*keys)[41], int max, char *err, size_t errlen)
{
	FILE *f;
	char line[256];
	int n = 0, lineno = 0, rc;

	if ((rc = zmq_dl_open(err, errlen)) < 0)
		return rc;
	f = fopen(path, "r");
	if (!f) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		char *s = line + strspn(line, " \t\r\n");
		size_t l = strcspn(s, " \t\r\n");
		uint8_t bin[32];
		s[l] = 0;
		bool key = l == 40 && zdl.z85_decode(bin, s);
		if (!l || (*s == '#' && !key))
			continue;   /* blank or comment ('#' is also a Z85 digit: a key may start with it) */
		if (!key) {
			snprintf(err, errlen, "%s:%d: not a Z85 CURVE key (40 characters)", path, lineno);
			fclose(f);
			return -EINVAL;
		}
		if (n == max) {
			snprintf(err, errlen, "%s:%d: more than %d keys", path, lineno, max);
			fclose(f);
			return -E2BIG;
		}
		memcpy(keys[n++], s, 41);
	}
	fclose(f);
	if (!n) {
		snprintf(err, errlen, "%s: no key in the file", path);
		return -EINVAL;
	}
	return n;
}

int fwd_check_cfg(const struct fwd_cfg *c, char *err, size_t errlen)
{
	char k[FWD_KEYS_MAX][41];

	if (c->forward && c->curve_key && !c->curve_server_key) {
		snprintf(err, errlen, "--curve-key with --forward needs --curve-server-key (the collector's public key)");
		return -EINVAL;
	}
	if (c->forward && c->curve_server_key && !c->curve_key) {
		snprintf(err, errlen, "--curve-server-key needs --curve-key (this host's secret key)");
		return -EINVAL;
	}
	if (c->collect && !c->nallow && !c->curve_allow) {
		snprintf(err, errlen, "--collect accepts only the peers it is told to: give --collect-allow ADDR "
			 "or --curve-allow FILE");
		return -EINVAL;
	}
	if (c->collect && c->curve_allow && !c->curve_key) {
		snprintf(err, errlen, "--curve-allow needs --curve-key (the collector's secret key)");
		return -EINVAL;
	}
	if ((c->curve_key || c->curve_allow) && zmq_dl_open(err, errlen) < 0)
		return -ENOENT;
	if ((c->curve_key || c->curve_allow) && !zdl.has("curve")) {
		snprintf(err, errlen, "CURVE: this libzmq was built without it");
		return -EINVAL;
	}
	if (c->curve_key && fwd_read_keys(c->curve_key, k, 1, err, errlen) < 0)
		return -EINVAL;
	if (c->curve_server_key && fwd_read_keys(c->curve_server_key, k, 1, err, errlen) < 0)
		return -EINVAL;
	if (c->collect && c->curve_allow && fwd_read_keys(c->curve_allow, k, FWD_KEYS_MAX, err, errlen) < 0)
		return -EINVAL;
	return 0;
}

int fwd_keygen(const char *path, char *err, size_t errlen)
{
	char pub[41], sec[41], pubpath[4096];
	int fd, rc;
	FILE *f;

	if ((rc = zmq_dl_open(err, errlen)) < 0)
		return rc;
	if (zdl.curve_keypair(pub, sec) != 0) {
		snprintf(err, errlen, "CURVE key pair: %s", zdl.strerror(zdl.errnum()));
		return -ENOTSUP;
	}
	if ((size_t)snprintf(pubpath, sizeof(pubpath), "%s.pub", path) >= sizeof(pubpath)) {
		snprintf(err, errlen, "%s: path too long", path);
		return -ENAMETOOLONG;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		if (fd >= 0)
			close(fd);
		return -e;
	}
	fprintf(f, "# nfsrdmad CURVE secret key (keep private)\n%s\n", sec);
	if (fclose(f)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -EIO;
	}
	if (!(f = fopen(pubpath, "wx"))) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", pubpath, strerror(e));
		return -e;
	}
	fprintf(f, "%s\n", pub);
	if (fclose(f)) {
		snprintf(err, errlen, "%s: %s", pubpath, strerror(errno));
		return -EIO;
	}
	return 0;
}
