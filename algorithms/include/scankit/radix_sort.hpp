// The former name of scankit/sort.hpp; new code includes that.
#pragma once

#include "scankit/sort.hpp"
