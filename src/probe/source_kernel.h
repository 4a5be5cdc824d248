/* kernel[:client|server]: the records of the kernel probes as a record
 * source (pcap/source.h), for the source table. */
#ifndef NFSRDMA_SOURCE_KERNEL_H
#define NFSRDMA_SOURCE_KERNEL_H

#include "pcap/source.h"

extern const struct source_type source_type_kernel;

#endif
