/* nfsrdmad gives up root once its sockets and BPF programs are set up:
 * only the user named by --user runs the long-lived loop. */
#ifndef NFSRDMA_PRIVDROP_H
#define NFSRDMA_PRIVDROP_H

/* Hands the control socket (sock, when ctl_fd is open) to user and group
 * (the user's own group when NULL), then becomes user for good; 0, or
 * -ENOENT (no such user or group) / -EPERM (could not, or could regain
 * root), each said in one log line. */
int drop_privileges(const char *user, int ctl_fd, const char *sock, const char *group);

#endif
