/* Shared between roce_count.bpf.c and its loaders/tests. */
#ifndef NFSRDMA_ROCE_COUNT_H
#define NFSRDMA_ROCE_COUNT_H

#define ROCE_V2_UDP_PORT 4791
/* Slots of the stats array: one per BTH opcode, then the totals below. */
#define ROCE_COUNT_OPCODES 256
enum roce_count_slot {
	ROCE_SLOT_FRAMES = ROCE_COUNT_OPCODES, /* every frame seen */
	ROCE_SLOT_ROCEV2,                      /* UDP to the RoCEv2 port with a whole BTH */
	ROCE_SLOT_SHORT,                       /* to the port but too short for a BTH */
	ROCE_SLOT_MAX,
};

#endif
