#include <libpq-fe.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
