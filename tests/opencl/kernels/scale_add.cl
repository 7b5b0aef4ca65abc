// A multiply and an add in separate statements: two rounded instructions unless the build options
// allow fusing them ([BPG] 5, -cl-mad-enable).
__kernel void scaleAdd(__global float *out, __global const float *a, __global const float *b, float scale)
{
    int i = get_global_id(0);
    float scaled = a[i] * scale;
    float sum = scaled + b[i];
    out[i] = sum;
}
