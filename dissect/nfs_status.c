#include "dissect/nfs_status.h"

#include <stddef.h>

struct stat_name { uint32_t v; const char *n; };

static const struct stat_name stats[] = {
	{ 0, "OK" }, { 1, "PERM" }, { 2, "NOENT" }, { 5, "IO" }, { 6, "NXIO" },
	{ 13, "ACCES" }, { 17, "EXIST" }, { 18, "XDEV" }, { 19, "NODEV" },
	{ 20, "NOTDIR" }, { 21, "ISDIR" }, { 22, "INVAL" }, { 27, "FBIG" },
	{ 28, "NOSPC" }, { 30, "ROFS" }, { 31, "MLINK" }, { 63, "NAMETOOLONG" },
	{ 66, "NOTEMPTY" }, { 69, "DQUOT" }, { 70, "STALE" }, { 71, "REMOTE" },
	{ 10001, "BADHANDLE" }, { 10002, "NOT_SYNC" }, { 10003, "BAD_COOKIE" },
	{ 10004, "NOTSUPP" }, { 10005, "TOOSMALL" }, { 10006, "SERVERFAULT" },
	{ 10007, "BADTYPE" }, { 10008, "DELAY" }, { 10009, "SAME" },
	{ 10010, "DENIED" }, { 10011, "EXPIRED" }, { 10012, "LOCKED" },
	{ 10013, "GRACE" }, { 10014, "FHEXPIRED" }, { 10015, "SHARE_DENIED" },
	{ 10016, "WRONGSEC" }, { 10017, "CLID_INUSE" }, { 10018, "RESOURCE" },
	{ 10019, "MOVED" }, { 10020, "NOFILEHANDLE" }, { 10021, "MINOR_VERS_MISMATCH" },
	{ 10022, "STALE_CLIENTID" }, { 10023, "STALE_STATEID" }, { 10024, "OLD_STATEID" },
	{ 10025, "BAD_STATEID" }, { 10026, "BAD_SEQID" }, { 10027, "NOT_SAME" },
	{ 10028, "LOCK_RANGE" }, { 10029, "SYMLINK" }, { 10030, "RESTOREFH" },
	{ 10031, "LEASE_MOVED" }, { 10032, "ATTRNOTSUPP" }, { 10033, "NO_GRACE" },
	{ 10034, "RECLAIM_BAD" }, { 10035, "RECLAIM_CONFLICT" }, { 10036, "BADXDR" },
	{ 10037, "LOCKS_HELD" }, { 10038, "OPENMODE" }, { 10039, "BADOWNER" },
	{ 10040, "BADCHAR" }, { 10041, "BADNAME" }, { 10042, "BAD_RANGE" },
	{ 10043, "LOCK_NOTSUPP" }, { 10044, "OP_ILLEGAL" }, { 10045, "DEADLOCK" },
	{ 10046, "FILE_OPEN" }, { 10047, "ADMIN_REVOKED" }, { 10048, "CB_PATH_DOWN" },
	{ 10049, "BADIOMODE" }, { 10050, "BADLAYOUT" }, { 10051, "BAD_SESSION_DIGEST" },
	{ 10052, "BADSESSION" }, { 10053, "BADSLOT" }, { 10054, "COMPLETE_ALREADY" },
	{ 10055, "CONN_NOT_BOUND_TO_SESSION" }, { 10056, "DELEG_ALREADY_WANTED" },
	{ 10057, "BACK_CHAN_BUSY" }, { 10058, "LAYOUTTRYLATER" }, { 10059, "LAYOUTUNAVAILABLE" },
	{ 10060, "NOMATCHING_LAYOUT" }, { 10061, "RECALLCONFLICT" }, { 10062, "UNKNOWN_LAYOUTTYPE" },
	{ 10063, "SEQ_MISORDERED" }, { 10064, "SEQUENCE_POS" }, { 10065, "REQ_TOO_BIG" },
	{ 10066, "REP_TOO_BIG" }, { 10067, "REP_TOO_BIG_TO_CACHE" }, { 10068, "RETRY_UNCACHED_REP" },
	{ 10069, "UNSAFE_COMPOUND" }, { 10070, "TOO_MANY_OPS" }, { 10071, "OP_NOT_IN_SESSION" },
	{ 10072, "HASH_ALG_UNSUPP" }, { 10074, "CLIENTID_BUSY" }, { 10075, "PNFS_IO_HOLE" },
	{ 10076, "SEQ_FALSE_RETRY" }, { 10077, "BAD_HIGH_SLOT" }, { 10078, "DEADSESSION" },
	{ 10079, "ENCR_ALG_UNSUPP" }, { 10080, "PNFS_NO_LAYOUT" }, { 10081, "NOT_ONLY_OP" },
	{ 10082, "WRONG_CRED" }, { 10083, "WRONG_TYPE" }, { 10084, "DIRDELEG_UNAVAIL" },
	{ 10085, "REJECT_DELEG" }, { 10086, "RETURNCONFLICT" }, { 10087, "DELEG_REVOKED" },
	{ 10088, "PARTNER_NOTSUPP" }, { 10089, "PARTNER_NO_AUTH" }, { 10090, "UNION_NOTSUPP" },
	{ 10091, "OFFLOAD_DENIED" }, { 10092, "WRONG_LFS" }, { 10093, "BADLABEL" },
	{ 10094, "OFFLOAD_NO_REQS" }, { 10095, "NOXATTR" }, { 10096, "XATTR2BIG" },
};

const char *nfs_stat_name(uint32_t s)
{
	size_t lo = 0, hi = sizeof(stats) / sizeof(stats[0]);

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (stats[mid].v == s)
			return stats[mid].n;
		if (stats[mid].v < s)
			lo = mid + 1;
		else
			hi = mid;
	}
	return "ERR_?";
}
