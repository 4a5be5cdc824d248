/* Dropping root after the sockets are bound (see privdrop.h). */
#include "src/daemon/privdrop.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "src/base/log.h"

int drop_privileges(const char *user, int ctl_fd, const char *sock, const char *group)
{
	struct passwd *pw = getpwnam(user);
	gid_t sgid;

	if (!pw) {
		log_error("--user %s: no such user", user);
		return -ENOENT;
	}
	sgid = pw->pw_gid;
	if (group) {
		struct group *gr = getgrnam(group);
		if (!gr) {
			log_error("--socket-group %s: no such group", group);
			return -ENOENT;
		}
		sgid = gr->gr_gid;
	}
	if (ctl_fd >= 0 && sock && chown(sock, pw->pw_uid, sgid) < 0)
		log_warn("%s: chown: %s", sock, strerror(errno));
	if (setgroups(0, NULL) < 0 || setgid(pw->pw_gid) < 0 || setuid(pw->pw_uid) < 0) {
		log_error("dropping privileges to %s: %s", user, strerror(errno));
		return -EPERM;
	}
	if (setuid(0) == 0 && pw->pw_uid != 0) {
		log_error("dropping privileges to %s: could regain root", user);
		return -EPERM;
	}
	log_info("running as %s (uid %u)", user, (unsigned)pw->pw_uid);
	return 0;
}
