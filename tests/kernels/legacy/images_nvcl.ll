; ptxray legacy corpus: OpenCL-style image access for the NVIDIA OpenCL driver
; interface (triple nvptx-nvidia-nvcl, 32-bit addresses), as LLVM 14 emits it
; for sm_30: ".target sm_30, texmode_independent", separate .samplerref
; variables, and image / sampler kernel parameters (.param .texref /
; .param .surfref / .param .samplerref) selected by nvvm.annotations
; ("rdoimage", "wroimage", "sampler"). Hand-written for ptxray.
; llc-14 -march=nvptx -mcpu=sm_30 images_nvcl.ll

target datalayout = "e-p:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx-nvidia-nvcl"

@lut = addrspace(1) global i64 0, align 8
@lut_sampler = addrspace(1) global i64 0, align 8

declare i64 @llvm.nvvm.texsurf.handle.internal.p1i64(i64 addrspace(1)*)
declare { float, float, float, float } @llvm.nvvm.tex.1d.v4f32.s32(i64, i64, i32)
declare { float, float, float, float } @llvm.nvvm.tex.2d.v4f32.f32(i64, i64, float, float)
declare { i32, i32, i32, i32 } @llvm.nvvm.tex.2d.v4u32.f32(i64, i64, float, float)
declare void @llvm.nvvm.sust.b.2d.v4i32.trap(i64, i32, i32, i32, i32, i32, i32)
declare i32 @llvm.nvvm.txq.height(i64)
declare i32 @llvm.nvvm.txq.channel.order(i64)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()

; %src: read-only image, %dst: write-only image, %smp: sampler.
define void @copy_image(i64 %src, i64 %dst, i64 %smp, float addrspace(1)* %out) {
entry:
  %x = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %y = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %fx = sitofp i32 %x to float
  %fy = sitofp i32 %y to float
  %px = call { float, float, float, float } @llvm.nvvm.tex.2d.v4f32.f32(i64 %src, i64 %smp, float %fx, float %fy)
  %r = extractvalue { float, float, float, float } %px, 0
  %g = extractvalue { float, float, float, float } %px, 1
  %u = call { i32, i32, i32, i32 } @llvm.nvvm.tex.2d.v4u32.f32(i64 %src, i64 %smp, float %fy, float %fx)
  %ua = extractvalue { i32, i32, i32, i32 } %u, 3
  %ri = fptoui float %r to i32
  %gi = fptoui float %g to i32
  %x16 = shl i32 %x, 4
  call void @llvm.nvvm.sust.b.2d.v4i32.trap(i64 %dst, i32 %x16, i32 %y, i32 %ri, i32 %gi, i32 %ua, i32 0)
  %h = call i32 @llvm.nvvm.txq.height(i64 %src)
  %o = call i32 @llvm.nvvm.txq.channel.order(i64 %src)
  %hl = add i32 %h, %o
  %hf = sitofp i32 %hl to float
  %p = getelementptr inbounds float, float addrspace(1)* %out, i32 %x
  store float %hf, float addrspace(1)* %p, align 4
  ret void
}

; Module-scope texture and sampler references.
define void @lookup(float addrspace(1)* %out) {
entry:
  %x = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ht = call i64 @llvm.nvvm.texsurf.handle.internal.p1i64(i64 addrspace(1)* @lut)
  %hs = call i64 @llvm.nvvm.texsurf.handle.internal.p1i64(i64 addrspace(1)* @lut_sampler)
  %t = call { float, float, float, float } @llvm.nvvm.tex.1d.v4f32.s32(i64 %ht, i64 %hs, i32 %x)
  %t0 = extractvalue { float, float, float, float } %t, 0
  %p = getelementptr inbounds float, float addrspace(1)* %out, i32 %x
  store float %t0, float addrspace(1)* %p, align 4
  ret void
}

!nvvm.annotations = !{!0, !1, !2, !3, !4, !5, !6}
!0 = !{void (i64, i64, i64, float addrspace(1)*)* @copy_image, !"kernel", i32 1}
!1 = !{void (i64, i64, i64, float addrspace(1)*)* @copy_image, !"rdoimage", i32 0}
!2 = !{void (i64, i64, i64, float addrspace(1)*)* @copy_image, !"wroimage", i32 1}
!3 = !{void (i64, i64, i64, float addrspace(1)*)* @copy_image, !"sampler", i32 2}
!4 = !{void (float addrspace(1)*)* @lookup, !"kernel", i32 1}
!5 = !{i64 addrspace(1)* @lut, !"texture", i32 1}
!6 = !{i64 addrspace(1)* @lut_sampler, !"sampler", i32 1}
