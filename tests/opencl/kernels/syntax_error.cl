// A build error: the compiler's message must name this file, line and column.
__kernel void broken(__global float *out)
{
    out[get_global_id(0)] = undeclared_variable;
}
