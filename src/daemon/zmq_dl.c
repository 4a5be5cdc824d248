/* libzmq loaded at run time (see zmq_dl.h). */
#include "src/daemon/zmq_dl.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>

struct zmq_dl zdl;

/* the ABI's soname first (libzmq 4.x), the development link second */
static const char *const zmq_names[] = { "libzmq.so.5", "libzmq.so" };

int zmq_dl_open(char *err, size_t errlen)
{
	static int state;   /* 0 not tried, 1 loaded, -ENOENT failed */
	static char why[256];
	void *h = NULL;

	if (state == 0) {
		for (size_t i = 0; !h && i < sizeof(zmq_names) / sizeof(zmq_names[0]); i++)
			if (!(h = dlopen(zmq_names[i], RTLD_NOW | RTLD_LOCAL)))
				snprintf(why, sizeof(why), "%s", dlerror());
		state = h ? 1 : -ENOENT;
#define ZMQ_DL_LOAD(name) \
		if (h && !(*(void **)&zdl.name = dlsym(h, "zmq_" #name))) { \
			snprintf(why, sizeof(why), "libzmq has no zmq_" #name); \
			state = -ENOENT; \
		}
		ZMQ_DL_FUNCS(ZMQ_DL_LOAD)
#undef ZMQ_DL_LOAD
		if (h && !(*(void **)&zdl.errnum = dlsym(h, "zmq_errno"))) {
			snprintf(why, sizeof(why), "libzmq has no zmq_errno");
			state = -ENOENT;
		}
	}
	if (state < 0)
		snprintf(err, errlen, "libzmq (package libzmq5) could not be loaded: %s", why);
	return state < 0 ? state : 0;
}
