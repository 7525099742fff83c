// Scalar arithmetic for our CUDA kernels (codelets/cuda/batched.cu, batched_small.cuh,
// spike.cu): one spelling for float, double, float2 and double2 (complex),
// so that each kernel is written once as a template.
#ifndef STARSOLVE_BATCHED_SCALAR_CUH
#define STARSOLVE_BATCHED_SCALAR_CUH
#include <cuComplex.h>

template <typename T> struct real_of { typedef T type; };
template <> struct real_of<float2> { typedef float type; };
template <> struct real_of<double2> { typedef double type; };

__device__ inline float re(float a) { return a; }
__device__ inline double re(double a) { return a; }
__device__ inline float re(float2 a) { return a.x; }
__device__ inline double re(double2 a) { return a.x; }
__device__ inline float im(float) { return 0; }
__device__ inline double im(double) { return 0; }
__device__ inline float im(float2 a) { return a.y; }
__device__ inline double im(double2 a) { return a.y; }
__device__ inline float conj_(float a) { return a; }
__device__ inline double conj_(double a) { return a; }
__device__ inline float2 conj_(float2 a) { return cuConjf(a); }
__device__ inline double2 conj_(double2 a) { return cuConj(a); }
__device__ inline float mul(float a, float b) { return a * b; }
__device__ inline double mul(double a, double b) { return a * b; }
__device__ inline float2 mul(float2 a, float2 b) { return cuCmulf(a, b); }
__device__ inline double2 mul(double2 a, double2 b) { return cuCmul(a, b); }
__device__ inline float sub(float a, float b) { return a - b; }
__device__ inline double sub(double a, double b) { return a - b; }
__device__ inline float2 sub(float2 a, float2 b) { return cuCsubf(a, b); }
__device__ inline double2 sub(double2 a, double2 b) { return cuCsub(a, b); }
__device__ inline float add(float a, float b) { return a + b; }
__device__ inline double add(double a, double b) { return a + b; }
__device__ inline float2 add(float2 a, float2 b) { return cuCaddf(a, b); }
__device__ inline double2 add(double2 a, double2 b) { return cuCadd(a, b); }
// complex division scaled against overflow (cuCdiv), as LAPACK's zladiv intends
__device__ inline float div_(float a, float b) { return a / b; }
__device__ inline double div_(double a, double b) { return a / b; }
__device__ inline float2 div_(float2 a, float2 b) { return cuCdivf(a, b); }
__device__ inline double2 div_(double2 a, double2 b) { return cuCdiv(a, b); }
// a times a real
__device__ inline float scale(float a, float s) { return a * s; }
__device__ inline double scale(double a, double s) { return a * s; }
__device__ inline float2 scale(float2 a, float s) { return make_float2(a.x * s, a.y * s); }
__device__ inline double2 scale(double2 a, double s) { return make_double2(a.x * s, a.y * s); }
template <typename T> __device__ inline T make(typename real_of<T>::type r, typename real_of<T>::type i);
template <> __device__ inline float make<float>(float r, float) { return r; }
template <> __device__ inline double make<double>(double r, double) { return r; }
template <> __device__ inline float2 make<float2>(float r, float i) { return make_float2(r, i); }
template <> __device__ inline double2 make<double2>(double r, double i) { return make_double2(r, i); }
// LAPACK's cabs1: the pivot measure of izamax
template <typename T> __device__ inline typename real_of<T>::type abs1(T a) { return fabs(re(a)) + fabs(im(a)); }
template <typename T> __device__ inline bool is_zero(T a) { return re(a) == 0 && im(a) == 0; }

#endif
