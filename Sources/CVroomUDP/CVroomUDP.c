#include "CVroomUDP.h"
