/* Records back from JSON Lines: the objects out_json writes (nfsrdma-dissect
 * --json, nfsrdmad --json), every record version from 1 on.  Unknown keys
 * are skipped (a newer writer's additions), a version newer than this
 * reader's is refused.  Hostile input: bounded, never a crash. */
#ifndef NFSRDMA_REC_JSON_H
#define NFSRDMA_REC_JSON_H

#include <stddef.h>

#include "dissect/record.h"

/* One line (no newline needed; len bytes, need not be NUL-terminated).
 * 0: r holds the record, its derived split recomputed; 1: a JSON line
 * that is not a record ({"type":...} summaries, findings, reports);
 * -EINVAL: err says what is wrong and at which byte. */
int rec_json_parse(const char *line, size_t len, struct nfsrdma_record *r, char *err, size_t errlen);

#endif
