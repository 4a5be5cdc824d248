/* Listening sockets for nfsrdmad: TCP for Prometheus (loopback unless
 * told otherwise) and the UNIX control socket for nfsrdma-top. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "src/daemon/daemon.h"

/* spec into ss/sl; 0, or -EINVAL with the reason in err. */
static int parse_tcp(const char *spec, struct sockaddr_storage *pss, socklen_t *psl, char *err, size_t errlen)
{
	char host[128];
	const char *port;
	struct sockaddr_storage ss;
	socklen_t sl;

	memset(&ss, 0, sizeof(ss));
	if (spec[0] == '[') {
		const char *end = strchr(spec, ']');
		if (!end || end[1] != ':' || (size_t)(end - spec - 1) >= sizeof(host))
			goto bad;
		memcpy(host, spec + 1, (size_t)(end - spec - 1));
		host[end - spec - 1] = 0;
		port = end + 2;
	} else {
		const char *c = strrchr(spec, ':');
		if (!c || (size_t)(c - spec) >= sizeof(host))
			goto bad;
		memcpy(host, spec, (size_t)(c - spec));
		host[c - spec] = 0;
		port = c + 1;
	}
	char *pend;
	long p = strtol(port, &pend, 10);
	if (!*port || *pend || p < 1 || p > 65535)
		goto bad;
	if (!host[0])
		snprintf(host, sizeof(host), "127.0.0.1");
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	if (inet_pton(AF_INET, host, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)p);
		sl = sizeof(*s4);
	} else if (inet_pton(AF_INET6, host, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)p);
		sl = sizeof(*s6);
	} else {
		goto bad;
	}
	*pss = ss;
	*psl = sl;
	return 0;
bad:
	snprintf(err, errlen, "%s: not ADDR:PORT (e.g. 127.0.0.1:9464)", spec);
	return -EINVAL;
}

int daemon_check_tcp(const char *spec, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t sl;

	return parse_tcp(spec, &ss, &sl, err, errlen);
}

int daemon_listen_tcp(const char *spec, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int one = 1;
	int rc = parse_tcp(spec, &ss, &sl, err, errlen);

	if (rc < 0)
		return rc;
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: socket: %s", spec, strerror(e));
		return -e;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, sl) < 0 || listen(fd, 16) < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", spec, strerror(e));
		close(fd);
		return -e;
	}
	return fd;
}

int daemon_listen_unix(const char *path, unsigned mode, char *err, size_t errlen)
{
	struct sockaddr_un su = { .sun_family = AF_UNIX };
	struct stat st;

	if (strlen(path) >= sizeof(su.sun_path)) {
		snprintf(err, errlen, "%s: socket path too long", path);
		return -ENAMETOOLONG;
	}
	snprintf(su.sun_path, sizeof(su.sun_path), "%s", path);
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			snprintf(err, errlen, "%s: exists and is not a socket", path);
			return -EEXIST;
		}
		/* A live daemon answers; a stale socket refuses: replace only that. */
		int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (probe >= 0 && connect(probe, (struct sockaddr *)&su, sizeof(su)) == 0) {
			close(probe);
			snprintf(err, errlen, "%s: another daemon is listening there", path);
			return -EADDRINUSE;
		}
		if (probe >= 0)
			close(probe);
		unlink(path);
	}
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: socket: %s", path, strerror(e));
		return -e;
	}
	/* umask covers the window between bind and chmod */
	mode_t old = umask(0777 & ~mode);
	int rc = bind(fd, (struct sockaddr *)&su, sizeof(su));
	umask(old);
	if (rc < 0 || chmod(path, mode) < 0 || listen(fd, 16) < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		close(fd);
		return -e;
	}
	return fd;
}
