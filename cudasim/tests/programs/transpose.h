// The device transpose of transpose.cu, called from transpose_main.cpp (host code only).
#pragma once

/// out (cols x rows, row-major) = the transpose of in (rows x cols, row-major), on the device.
void transposeOnDevice(const float* in, float* out, int rows, int cols);
