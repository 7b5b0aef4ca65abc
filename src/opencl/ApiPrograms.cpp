// Programs (from OpenCL C through clang and libclc, or from PTX binaries, which is what NVIDIA's
// driver hands out as a program's binary) and kernels: their arguments, as OpenCL C declared them,
// and their work-group limits from the occupancy calculator's register arithmetic.
#include "opencl/Api.h"

#include "vm/Texture.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace ptxray::opencl {
namespace {

bool built(cl_program p) {
  return p->status == CL_BUILD_SUCCESS && p->module;
}

cl_kernel newKernel(Platform &p, cl_program program, const toolchain::OpenCLKernelInfo &info) {
  auto *k = new _cl_kernel;
  k->program = program;
  p.retain(program);
  ++program->kernelObjects;
  k->function = program->module->findKernel(info.name);
  k->info = info;
  k->args.resize(info.args.size());
  p.adopt(k);
  return k;
}

const toolchain::OpenCLKernelInfo *kernelInfo(cl_program program, std::string_view name) {
  for (const toolchain::OpenCLKernelInfo &k : program->kernels)
    if (k.name == name)
      return &k;
  return nullptr;
}

/// The local memory a kernel uses: its static __local arrays and the __local arguments set so far.
cl_ulong localMemoryBytes(cl_kernel k) {
  cl_ulong bytes = k->function->staticSharedBytes;
  for (size_t i = 0; i < k->args.size(); ++i)
    if (k->info.args[i].space == toolchain::OpenCLKernelArg::Space::Local)
      bytes += k->args[i].localBytes;
  return bytes;
}

cl_int checkProgram(Platform &p, cl_program program) {
  return p.valid(program) ? CL_SUCCESS : CL_INVALID_PROGRAM;
}

cl_int checkDeviceList(Platform &p, cl_uint numDevices, const cl_device_id *devices) {
  if ((numDevices == 0) != (devices == nullptr))
    return CL_INVALID_VALUE;
  for (cl_uint i = 0; i < numDevices; ++i)
    if (devices[i] != &p.device)
      return CL_INVALID_DEVICE;
  return CL_SUCCESS;
}

} // namespace

namespace api {

cl_program clCreateProgramWithSource(cl_context context, cl_uint count, const char **strings, const size_t *lengths,
                                     cl_int *errcodeRet) {
  return create<cl_program>("clCreateProgramWithSource", PTXRAY_CL_ARGS(context, count, strings, lengths, errcodeRet),
                            errcodeRet, [&](Platform &p, auto &, cl_int &e) -> cl_program {
                              if (!p.valid(context)) {
                                e = CL_INVALID_CONTEXT;
                                return nullptr;
                              }
                              if (count == 0 || !strings) {
                                e = CL_INVALID_VALUE;
                                return nullptr;
                              }
                              std::string source;
                              for (cl_uint i = 0; i < count; ++i) {
                                if (!strings[i]) {
                                  e = CL_INVALID_VALUE;
                                  return nullptr;
                                }
                                source += lengths && lengths[i] ? std::string(strings[i], lengths[i])
                                                                : std::string(strings[i]);
                              }
                              auto *program = new _cl_program;
                              program->context = context;
                              p.retain(context);
                              program->source = source.empty() ? std::string("\n") : std::move(source);
                              p.adopt(program);
                              return program;
                            });
}

cl_program clCreateProgramWithBinary(cl_context context, cl_uint numDevices, const cl_device_id *devices,
                                     const size_t *lengths, const unsigned char **binaries, cl_int *binaryStatus,
                                     cl_int *errcodeRet) {
  return create<cl_program>("clCreateProgramWithBinary",
                            PTXRAY_CL_ARGS(context, numDevices, devices, lengths, binaries, binaryStatus, errcodeRet),
                            errcodeRet, [&](Platform &p, auto &, cl_int &e) -> cl_program {
                              if (!p.valid(context)) {
                                e = CL_INVALID_CONTEXT;
                                return nullptr;
                              }
                              if (numDevices == 0 || !devices || !lengths || !binaries) {
                                e = CL_INVALID_VALUE;
                                return nullptr;
                              }
                              if ((e = checkDeviceList(p, numDevices, devices)) != CL_SUCCESS)
                                return nullptr;
                              if (!binaries[0] || lengths[0] == 0) {
                                if (binaryStatus)
                                  binaryStatus[0] = CL_INVALID_VALUE;
                                e = CL_INVALID_VALUE;
                                return nullptr;
                              }
                              // PTX text, as NVIDIA's driver returns a program's binary (a terminating NUL allowed).
                              std::string binary(reinterpret_cast<const char *>(binaries[0]), lengths[0]);
                              while (!binary.empty() && binary.back() == '\0')
                                binary.pop_back();
                              if (binary.find(".version") == std::string::npos ||
                                  binary.find(".target") == std::string::npos ||
                                  binary.find('\0') != std::string::npos) {
                                if (binaryStatus)
                                  binaryStatus[0] = CL_INVALID_BINARY;
                                e = CL_INVALID_BINARY;
                                return nullptr;
                              }
                              if (binaryStatus)
                                binaryStatus[0] = CL_SUCCESS;
                              auto *program = new _cl_program;
                              program->context = context;
                              p.retain(context);
                              program->binary = std::move(binary);
                              program->binaryType = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
                              p.adopt(program);
                              return program;
                            });
}

cl_program clCreateProgramWithBuiltInKernels(cl_context context, cl_uint numDevices, const cl_device_id *devices,
                                             const char *, cl_int *errcodeRet) {
  return create<cl_program>("clCreateProgramWithBuiltInKernels",
                            PTXRAY_CL_ARGS(context, numDevices, devices, errcodeRet), errcodeRet,
                            [&](Platform &p, auto &, cl_int &e) -> cl_program {
                              // CL_DEVICE_BUILT_IN_KERNELS is empty: every name is invalid.
                              e = !p.valid(context) ? CL_INVALID_CONTEXT : checkDeviceList(p, numDevices, devices);
                              if (e == CL_SUCCESS)
                                e = CL_INVALID_VALUE;
                              return nullptr;
                            });
}

cl_int clRetainProgram(cl_program program) {
  return retainObject("clRetainProgram", program, CL_INVALID_PROGRAM);
}

cl_int clReleaseProgram(cl_program program) {
  return releaseObject("clReleaseProgram", program, CL_INVALID_PROGRAM);
}

cl_int clBuildProgram(cl_program program, cl_uint numDevices, const cl_device_id *devices, const char *options,
                      void(CL_CALLBACK *notify)(cl_program, void *), void *data) {
  return call("clBuildProgram", PTXRAY_CL_ARGS(program, numDevices, devices, options, notify, data),
              [&](Platform &p, auto &) -> cl_int {
                if (cl_int e = checkProgram(p, program))
                  return e;
                if (cl_int e = checkDeviceList(p, numDevices, devices))
                  return e;
                if (!notify && data)
                  return CL_INVALID_VALUE;
                if (program->kernelObjects)
                  return CL_INVALID_OPERATION;
                const cl_int result = p.build(program, options);
                if (notify) {
                  p.retain(program);
                  p.addCallback([&p, program, notify, data] {
                    notify(program, data);
                    std::lock_guard lock(p.mutex());
                    p.release(program);
                  });
                }
                return result;
              });
}

cl_int clCompileProgram(cl_program program, cl_uint numDevices, const cl_device_id *devices, const char *options,
                        cl_uint numHeaders, const cl_program *headers, const char **headerNames,
                        void(CL_CALLBACK *notify)(cl_program, void *), void *data) {
  return call("clCompileProgram",
              PTXRAY_CL_ARGS(program, numDevices, devices, options, numHeaders, headers, headerNames, notify, data),
              [&](Platform &p, auto &) -> cl_int {
                if (cl_int e = checkProgram(p, program))
                  return e;
                if (cl_int e = checkDeviceList(p, numDevices, devices))
                  return e;
                if ((numHeaders == 0) != (headers == nullptr) || (numHeaders && !headerNames) || (!notify && data))
                  return CL_INVALID_VALUE;
                if (program->source.empty() || program->kernelObjects)
                  return CL_INVALID_OPERATION;
                // The headers are given by name: put their text where the source's #include finds it, in order.
                std::string source;
                for (cl_uint i = 0; i < numHeaders; ++i) {
                  if (!p.valid(headers[i]))
                    return CL_INVALID_PROGRAM;
                  source += fmt::format("#ifndef PTXRAY_HEADER_{0}\n#define PTXRAY_HEADER_{0}\n", i);
                  source += headers[i]->source;
                  source += "\n#endif\n";
                }
                // A compiled object is the program built alone (nothing is left unresolved in OpenCL C 1.2
                // sources but the functions another object defines, which the link step supplies: the sources
                // are linked as one translation unit).
                std::string text = program->source;
                for (cl_uint i = 0; i < numHeaders; ++i)
                  for (size_t at = 0; (at = text.find(headerNames[i], at)) != std::string::npos;) {
                    const size_t line = text.rfind('\n', at) + 1;
                    const size_t end = text.find('\n', at);
                    if (text.compare(line, 8, "#include") == 0) {
                      text.replace(line, end - line, fmt::format("#define PTXRAY_INCLUDED_{}", i));
                      text.insert(line, source);
                      break;
                    }
                    at = end;
                  }
                program->source = text;
                program->options = options ? options : "";
                const cl_int result = p.compile(program);
                if (result != CL_SUCCESS)
                  return result;
                if (notify)
                  p.addCallback([program, notify, data] { notify(program, data); });
                return CL_SUCCESS;
              });
}

cl_program clLinkProgram(cl_context context, cl_uint numDevices, const cl_device_id *devices, const char *options,
                         cl_uint numPrograms, const cl_program *programs, void(CL_CALLBACK *notify)(cl_program, void *),
                         void *data, cl_int *errcodeRet) {
  return create<cl_program>(
      "clLinkProgram",
      PTXRAY_CL_ARGS(context, numDevices, devices, options, numPrograms, programs, notify, data, errcodeRet),
      errcodeRet, [&](Platform &p, auto &, cl_int &e) -> cl_program {
        if (!p.valid(context)) {
          e = CL_INVALID_CONTEXT;
          return nullptr;
        }
        if ((e = checkDeviceList(p, numDevices, devices)) != CL_SUCCESS)
          return nullptr;
        if (numPrograms == 0 || !programs || (!notify && data)) {
          e = CL_INVALID_VALUE;
          return nullptr;
        }
        std::string source;
        std::string compileOptions;
        for (cl_uint i = 0; i < numPrograms; ++i) {
          if (!p.valid(programs[i])) {
            e = CL_INVALID_PROGRAM;
            return nullptr;
          }
          if (programs[i]->binaryType != CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT &&
              programs[i]->binaryType != CL_PROGRAM_BINARY_TYPE_LIBRARY) {
            e = CL_INVALID_OPERATION;
            return nullptr;
          }
          source += programs[i]->source;
          source += "\n";
          if (compileOptions.empty())
            compileOptions = programs[i]->options;
        }
        auto *program = new _cl_program;
        program->context = context;
        p.retain(context);
        program->source = std::move(source);
        p.adopt(program);
        std::string linkOptions = options ? options : "";
        const bool library = linkOptions.find("-create-library") != std::string::npos;
        if (library) {
          program->status = CL_BUILD_SUCCESS;
          program->binaryType = CL_PROGRAM_BINARY_TYPE_LIBRARY;
        } else {
          // Link options: -cl-denorms-are-zero and the math options, which the compile accepts too.
          for (const char *dropped : {"-enable-link-options"})
            if (size_t at = linkOptions.find(dropped); at != std::string::npos)
              linkOptions.erase(at, std::strlen(dropped));
          const cl_int result = p.build(program, (compileOptions + " " + linkOptions).c_str());
          if (result != CL_SUCCESS)
            e = result == CL_BUILD_PROGRAM_FAILURE ? CL_LINK_PROGRAM_FAILURE : CL_INVALID_LINKER_OPTIONS;
        }
        if (e != CL_SUCCESS) {
          p.release(program);
          return nullptr;
        }
        if (notify)
          p.addCallback([program, notify, data] { notify(program, data); });
        return program;
      });
}

cl_int clUnloadCompiler() {
  return CL_SUCCESS;
}

cl_int clUnloadPlatformCompiler(cl_platform_id platform) {
  return call("clUnloadPlatformCompiler", PTXRAY_CL_ARGS(platform), [&](Platform &p, auto &) -> cl_int {
    return platform == &p.platform ? CL_SUCCESS : CL_INVALID_PLATFORM;
  });
}

cl_int clGetProgramInfo(cl_program program, cl_program_info name, size_t size, void *value, size_t *sizeRet) {
  return call("clGetProgramInfo", PTXRAY_CL_ARGS(program, name, size, value, sizeRet),
              [&](Platform &p, auto &) -> cl_int {
                if (cl_int e = checkProgram(p, program))
                  return e;
                switch (name) {
                case CL_PROGRAM_REFERENCE_COUNT: return info(size, value, sizeRet, program->refs);
                case CL_PROGRAM_CONTEXT: return info(size, value, sizeRet, program->context);
                case CL_PROGRAM_NUM_DEVICES: return info(size, value, sizeRet, cl_uint{1});
                case CL_PROGRAM_DEVICES: return info(size, value, sizeRet, static_cast<cl_device_id>(&p.device));
                case CL_PROGRAM_SOURCE: return infoString(size, value, sizeRet, program->source);
                case CL_PROGRAM_BINARY_SIZES: {
                  const size_t bytes = built(program) ? program->binary.size() + 1 : 0;
                  return info(size, value, sizeRet, bytes);
                }
                case CL_PROGRAM_BINARIES: {
                  // An array of pointers, one per device, each to a buffer of CL_PROGRAM_BINARY_SIZES bytes.
                  if (value) {
                    if (size < sizeof(unsigned char *))
                      return CL_INVALID_VALUE;
                    auto *out = static_cast<unsigned char **>(value)[0];
                    if (out && built(program))
                      std::memcpy(out, program->binary.c_str(), program->binary.size() + 1);
                  }
                  if (sizeRet)
                    *sizeRet = sizeof(unsigned char *);
                  return CL_SUCCESS;
                }
                case CL_PROGRAM_NUM_KERNELS:
                  if (!built(program))
                    return CL_INVALID_PROGRAM_EXECUTABLE;
                  return info(size, value, sizeRet, program->kernels.size());
                case CL_PROGRAM_KERNEL_NAMES: {
                  if (!built(program))
                    return CL_INVALID_PROGRAM_EXECUTABLE;
                  std::string names;
                  for (const toolchain::OpenCLKernelInfo &k : program->kernels)
                    names += (names.empty() ? "" : ";") + k.name;
                  return infoString(size, value, sizeRet, names);
                }
                default: return CL_INVALID_VALUE;
                }
              });
}

cl_int clGetProgramBuildInfo(cl_program program, cl_device_id device, cl_program_build_info name, size_t size,
                             void *value, size_t *sizeRet) {
  return call("clGetProgramBuildInfo", PTXRAY_CL_ARGS(program, device, name, size, value, sizeRet),
              [&](Platform &p, auto &) -> cl_int {
                if (cl_int e = checkProgram(p, program))
                  return e;
                if (device != &p.device)
                  return CL_INVALID_DEVICE;
                switch (name) {
                case CL_PROGRAM_BUILD_STATUS: return info(size, value, sizeRet, program->status);
                case CL_PROGRAM_BUILD_OPTIONS: return infoString(size, value, sizeRet, program->options);
                case CL_PROGRAM_BUILD_LOG: return infoString(size, value, sizeRet, program->log);
                case CL_PROGRAM_BINARY_TYPE: return info(size, value, sizeRet, program->binaryType);
                default: return CL_INVALID_VALUE;
                }
              });
}

// ---------------------------------------------------------------------------------------------------
// Kernels

cl_kernel clCreateKernel(cl_program program, const char *name, cl_int *errcodeRet) {
  return create<cl_kernel>("clCreateKernel", PTXRAY_CL_ARGS(program, name, errcodeRet), errcodeRet,
                           [&](Platform &p, auto &, cl_int &e) -> cl_kernel {
                             if ((e = checkProgram(p, program)) != CL_SUCCESS)
                               return nullptr;
                             if (!built(program)) {
                               e = CL_INVALID_PROGRAM_EXECUTABLE;
                               return nullptr;
                             }
                             if (!name) {
                               e = CL_INVALID_VALUE;
                               return nullptr;
                             }
                             const toolchain::OpenCLKernelInfo *k = kernelInfo(program, name);
                             if (!k || !program->module->findKernel(name)) {
                               e = CL_INVALID_KERNEL_NAME;
                               return nullptr;
                             }
                             return newKernel(p, program, *k);
                           });
}

cl_int clCreateKernelsInProgram(cl_program program, cl_uint numKernels, cl_kernel *kernels, cl_uint *numRet) {
  return call("clCreateKernelsInProgram", PTXRAY_CL_ARGS(program, numKernels, kernels, numRet),
              [&](Platform &p, auto &) -> cl_int {
                if (cl_int e = checkProgram(p, program))
                  return e;
                if (!built(program))
                  return CL_INVALID_PROGRAM_EXECUTABLE;
                const auto count = static_cast<cl_uint>(program->kernels.size());
                if (kernels && numKernels < count)
                  return CL_INVALID_VALUE;
                if (kernels)
                  for (cl_uint i = 0; i < count; ++i)
                    kernels[i] = newKernel(p, program, program->kernels[i]);
                if (numRet)
                  *numRet = count;
                return CL_SUCCESS;
              });
}

cl_int clRetainKernel(cl_kernel kernel) {
  return retainObject("clRetainKernel", kernel, CL_INVALID_KERNEL);
}

cl_int clReleaseKernel(cl_kernel kernel) {
  return releaseObject("clReleaseKernel", kernel, CL_INVALID_KERNEL);
}

cl_int clSetKernelArg(cl_kernel kernel, cl_uint index, size_t size, const void *value) {
  return call("clSetKernelArg", PTXRAY_CL_ARGS(kernel, index, size, value), [&](Platform &p, auto &) -> cl_int {
    using Space = toolchain::OpenCLKernelArg::Space;
    if (!p.valid(kernel))
      return CL_INVALID_KERNEL;
    if (index >= kernel->args.size())
      return CL_INVALID_ARG_INDEX;
    const toolchain::OpenCLKernelArg &declared = kernel->info.args[index];
    const size_t paramBytes = kernel->function->paramSizes[index];
    // Arguments the program's PTX does not describe (a binary from elsewhere): told apart by what is
    // given, as the specification's rules allow: no value is a __local size; a pointer-sized value
    // naming a buffer is that buffer.
    Space space = declared.space;
    if (declared.type.empty()) {
      if (!value && size)
        space = Space::Local;
      else if (size == sizeof(cl_mem) && paramBytes == 8 && value &&
               (!*static_cast<const cl_mem *>(value) || p.valid(*static_cast<const cl_mem *>(value))))
        space = Space::Global;
    }
    KernelArg arg;
    const bool image = declared.type.starts_with("image");
    if (image || declared.type == "sampler_t") {
      // An image goes to the kernel as its texture handle (read_only) or surface handle (write_only), a
      // sampler as the handle of its CLK_* bits.
      if (size != sizeof(void *))
        return CL_INVALID_ARG_SIZE;
      if (!value)
        return CL_INVALID_ARG_VALUE;
      uint64_t handle = 0;
      if (image) {
        cl_mem m = *static_cast<const cl_mem *>(value);
        const std::string_view t = declared.type;
        const cl_mem_object_type wanted = t.starts_with("image1d_array")    ? CL_MEM_OBJECT_IMAGE1D_ARRAY
                                          : t.starts_with("image1d_buffer") ? CL_MEM_OBJECT_IMAGE1D_BUFFER
                                          : t.starts_with("image2d_array")  ? CL_MEM_OBJECT_IMAGE2D_ARRAY
                                          : t.starts_with("image1d")        ? CL_MEM_OBJECT_IMAGE1D
                                          : t.starts_with("image3d")        ? CL_MEM_OBJECT_IMAGE3D
                                                                            : CL_MEM_OBJECT_IMAGE2D;
        if (!m || !p.valid(m) || !m->isImage())
          return CL_INVALID_MEM_OBJECT;
        if (m->type != wanted)
          return CL_INVALID_ARG_VALUE;
        handle = declared.access == "write_only" ? m->surface : m->texture;
        arg.memory = m;
        p.retain(m);
      } else {
        cl_sampler s = *static_cast<const cl_sampler *>(value);
        if (!s || !p.valid(s))
          return CL_INVALID_SAMPLER;
        handle = vm::TextureTable::openclSamplerHandle(s->bits());
      }
      arg.value.resize(8);
      std::memcpy(arg.value.data(), &handle, 8);
      arg.set = true;
      KernelArg &slot = kernel->args[index];
      if (slot.memory)
        p.release(slot.memory);
      slot = std::move(arg);
      return CL_SUCCESS;
    }
    switch (space) {
    case Space::Local:
      if (value)
        return CL_INVALID_ARG_VALUE;
      if (size == 0)
        return CL_INVALID_ARG_SIZE;
      arg.localBytes = size;
      break;
    case Space::Global:
    case Space::Constant: {
      if (size != sizeof(cl_mem))
        return CL_INVALID_ARG_SIZE;
      cl_mem m = value ? *static_cast<const cl_mem *>(value) : nullptr;
      if (m && !p.valid(m))
        return CL_INVALID_MEM_OBJECT;
      if (m && space == Space::Constant && m->size > static_cast<size_t>(p.cc().constantMemoryBytes))
        return CL_INVALID_ARG_SIZE;
      arg.memory = m;
      if (m)
        p.retain(m);
      break;
    }
    case Space::Private:
      if (size != paramBytes)
        return CL_INVALID_ARG_SIZE;
      if (!value)
        return CL_INVALID_ARG_VALUE;
      arg.value.assign(static_cast<const std::byte *>(value), static_cast<const std::byte *>(value) + size);
      break;
    }
    arg.set = true;
    KernelArg &slot = kernel->args[index];
    if (slot.memory)
      p.release(slot.memory);
    slot = std::move(arg);
    return CL_SUCCESS;
  });
}

cl_int clGetKernelInfo(cl_kernel kernel, cl_kernel_info name, size_t size, void *value, size_t *sizeRet) {
  return call("clGetKernelInfo", PTXRAY_CL_ARGS(kernel, name, size, value, sizeRet),
              [&](Platform &p, auto &) -> cl_int {
                if (!p.valid(kernel))
                  return CL_INVALID_KERNEL;
                switch (name) {
                case CL_KERNEL_FUNCTION_NAME: return infoString(size, value, sizeRet, kernel->info.name);
                case CL_KERNEL_NUM_ARGS: return info(size, value, sizeRet, static_cast<cl_uint>(kernel->args.size()));
                case CL_KERNEL_REFERENCE_COUNT: return info(size, value, sizeRet, kernel->refs);
                case CL_KERNEL_CONTEXT: return info(size, value, sizeRet, kernel->program->context);
                case CL_KERNEL_PROGRAM: return info(size, value, sizeRet, kernel->program);
                case CL_KERNEL_ATTRIBUTES: {
                  std::string attributes;
                  const auto &r = kernel->info.requiredWorkGroupSize;
                  if (r[0])
                    attributes = fmt::format("reqd_work_group_size({},{},{})", r[0], r[1], r[2]);
                  return infoString(size, value, sizeRet, attributes);
                }
                default: return CL_INVALID_VALUE;
                }
              });
}

cl_int clGetKernelArgInfo(cl_kernel kernel, cl_uint index, cl_kernel_arg_info name, size_t size, void *value,
                          size_t *sizeRet) {
  return call("clGetKernelArgInfo", PTXRAY_CL_ARGS(kernel, index, name, size, value, sizeRet),
              [&](Platform &p, auto &) -> cl_int {
                using Space = toolchain::OpenCLKernelArg::Space;
                if (!p.valid(kernel))
                  return CL_INVALID_KERNEL;
                if (index >= kernel->args.size())
                  return CL_INVALID_ARG_INDEX;
                const toolchain::OpenCLKernelArg &a = kernel->info.args[index];
                // Only for a program built from source with -cl-kernel-arg-info, as the specification says.
                if (a.type.empty() || !kernel->program->argumentInfo)
                  return CL_KERNEL_ARG_INFO_NOT_AVAILABLE;
                switch (name) {
                case CL_KERNEL_ARG_ADDRESS_QUALIFIER: {
                  const cl_kernel_arg_address_qualifier q = a.space == Space::Global ? CL_KERNEL_ARG_ADDRESS_GLOBAL
                                                            : a.space == Space::Constant
                                                                ? CL_KERNEL_ARG_ADDRESS_CONSTANT
                                                            : a.space == Space::Local ? CL_KERNEL_ARG_ADDRESS_LOCAL
                                                                                      : CL_KERNEL_ARG_ADDRESS_PRIVATE;
                  return info(size, value, sizeRet, q);
                }
                case CL_KERNEL_ARG_ACCESS_QUALIFIER: {
                  const cl_kernel_arg_access_qualifier q = a.access == "read_only"    ? CL_KERNEL_ARG_ACCESS_READ_ONLY
                                                           : a.access == "write_only" ? CL_KERNEL_ARG_ACCESS_WRITE_ONLY
                                                           : a.access == "read_write" ? CL_KERNEL_ARG_ACCESS_READ_WRITE
                                                                                      : CL_KERNEL_ARG_ACCESS_NONE;
                  return info(size, value, sizeRet, q);
                }
                case CL_KERNEL_ARG_TYPE_NAME: return infoString(size, value, sizeRet, a.type);
                case CL_KERNEL_ARG_TYPE_QUALIFIER: {
                  cl_kernel_arg_type_qualifier q = CL_KERNEL_ARG_TYPE_NONE;
                  if (a.qualifiers.find("const") != std::string::npos || a.space == Space::Constant)
                    q |= CL_KERNEL_ARG_TYPE_CONST;
                  if (a.qualifiers.find("restrict") != std::string::npos)
                    q |= CL_KERNEL_ARG_TYPE_RESTRICT;
                  if (a.qualifiers.find("volatile") != std::string::npos)
                    q |= CL_KERNEL_ARG_TYPE_VOLATILE;
                  return info(size, value, sizeRet, q);
                }
                case CL_KERNEL_ARG_NAME: return infoString(size, value, sizeRet, a.name);
                default: return CL_INVALID_VALUE;
                }
              });
}

cl_int clGetKernelWorkGroupInfo(cl_kernel kernel, cl_device_id device, cl_kernel_work_group_info name, size_t size,
                                void *value, size_t *sizeRet) {
  return call("clGetKernelWorkGroupInfo", PTXRAY_CL_ARGS(kernel, device, name, size, value, sizeRet),
              [&](Platform &p, auto &) -> cl_int {
                if (!p.valid(kernel))
                  return CL_INVALID_KERNEL;
                if (device && device != &p.device)
                  return CL_INVALID_DEVICE;
                switch (name) {
                case CL_KERNEL_WORK_GROUP_SIZE: return info(size, value, sizeRet, p.kernelWorkGroupLimit(kernel));
                case CL_KERNEL_COMPILE_WORK_GROUP_SIZE: {
                  const size_t dims[3] = {kernel->info.requiredWorkGroupSize[0], kernel->info.requiredWorkGroupSize[1],
                                          kernel->info.requiredWorkGroupSize[2]};
                  return infoBytes(size, value, sizeRet, dims, sizeof dims);
                }
                case CL_KERNEL_LOCAL_MEM_SIZE: return info(size, value, sizeRet, localMemoryBytes(kernel));
                case CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE:
                  return info(size, value, sizeRet, static_cast<size_t>(p.cc().warpSize));
                case CL_KERNEL_PRIVATE_MEM_SIZE:
                  return info(size, value, sizeRet, static_cast<cl_ulong>(kernel->function->frameBytes));
                case CL_KERNEL_GLOBAL_WORK_SIZE: return CL_INVALID_VALUE; // built-in kernels and custom devices only
                default: return CL_INVALID_VALUE;
                }
              });
}

} // namespace api
} // namespace ptxray::opencl
