// libm.cu's single-precision kernel compiled with -use_fast_math (see build_corpus.py).
#define LIBM_FAST 1
#include "libm.cu"
