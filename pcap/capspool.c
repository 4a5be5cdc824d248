/* The spool of a capture read once (see capspool.h). */
#include "pcap/capspool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool capspool_needed(const char *path)
{
	struct stat st;

	return !strcmp(path, "-") || stat(path, &st) < 0 || !S_ISREG(st.st_mode);
}

int capspool_open(struct capspool *sp, char *err, size_t errlen)
{
	const char *dir = getenv("TMPDIR");
	char tmpl[4096];
	int e;

	sp->fd = -1;
	sp->path[0] = 0;
	if (!dir || !*dir)
		dir = "/var/tmp";
	/* O_TMPFILE: never has a name, so nothing is left behind by a crash */
	sp->fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (sp->fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
		snprintf(tmpl, sizeof(tmpl), "%s/nfsrdma-spool-XXXXXX", dir);
		if ((sp->fd = mkostemp(tmpl, O_CLOEXEC)) >= 0)
			unlink(tmpl);
	}
	if (sp->fd < 0) {
		e = errno;
		snprintf(err, errlen, "cannot keep the input for the export in %s: %s", dir, strerror(e));
		return -e;
	}
	snprintf(sp->path, sizeof(sp->path), "/proc/self/fd/%d", sp->fd);
	return 0;
}

void capspool_close(struct capspool *sp)
{
	if (sp->fd >= 0)
		close(sp->fd);
	sp->fd = -1;
}
