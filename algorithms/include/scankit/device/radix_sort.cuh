// The former name of scankit/device/sort.cuh; new code includes that.
#pragma once

#include "scankit/device/sort.cuh"
