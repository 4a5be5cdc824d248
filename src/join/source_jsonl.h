/* jsonl:FILE: records read back from JSON Lines (rec_json.h) as a record
 * source (pcap/source.h), for the source table. */
#ifndef NFSRDMA_SOURCE_JSONL_H
#define NFSRDMA_SOURCE_JSONL_H

#include "pcap/source.h"

extern const struct source_type source_type_jsonl;

#endif
