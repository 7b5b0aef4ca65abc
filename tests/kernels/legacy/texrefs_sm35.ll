; ptxray legacy corpus: texture and surface access as LLVM 14 emits it for
; sm_35 (llc-14 -march=nvptx64 -mcpu=sm_35 -mattr=+ptx50).
;   * module-scope .texref / .surfref variables (texture references, the
;     pre-CUDA-12 API) accessed by name: tex.1d ... [tex_lut, {%r}]
;   * bindless handles (.u64 kernel parameters, unified texture mode)
;   * tld4 gather, suld / sust with .trap / .clamp / .zero, txq / suq queries.
; Hand-written for ptxray; clang 14 has no front-end builtins for these.

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@tex_lut = addrspace(1) global i64 0, align 8
@tex_img = addrspace(1) global i64 0, align 8
@surf_out = addrspace(1) global i64 0, align 8

declare i64 @llvm.nvvm.texsurf.handle.internal.p1i64(i64 addrspace(1)*)
declare { float, float, float, float } @llvm.nvvm.tex.unified.1d.v4f32.s32(i64, i32)
declare { float, float, float, float } @llvm.nvvm.tex.unified.2d.v4f32.f32(i64, float, float)
declare { i32, i32, i32, i32 } @llvm.nvvm.tex.unified.2d.v4s32.f32(i64, float, float)
declare { float, float, float, float } @llvm.nvvm.tex.unified.3d.v4f32.f32(i64, float, float, float)
declare { float, float, float, float } @llvm.nvvm.tex.unified.2d.level.v4f32.f32(i64, float, float, float)
declare { float, float, float, float } @llvm.nvvm.tld4.unified.r.2d.v4f32.f32(i64, float, float)
declare i32 @llvm.nvvm.suld.2d.i32.trap(i64, i32, i32)
declare i32 @llvm.nvvm.suld.1d.i32.clamp(i64, i32)
declare void @llvm.nvvm.sust.b.2d.i32.trap(i64, i32, i32, i32)
declare void @llvm.nvvm.sust.b.1d.i32.zero(i64, i32, i32)
declare i32 @llvm.nvvm.txq.width(i64)
declare i32 @llvm.nvvm.txq.num.mipmap.levels(i64)
declare i32 @llvm.nvvm.suq.height(i64)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()

; Texture / surface references named directly in the instructions.
define void @tex_by_reference(float addrspace(1)* %out, i32 %w) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %cta = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul i32 %cta, %ntid
  %i = add i32 %base, %tid
  %hlut = call i64 @llvm.nvvm.texsurf.handle.internal.p1i64(i64 addrspace(1)* @tex_lut)
  %himg = call i64 @llvm.nvvm.texsurf.handle.internal.p1i64(i64 addrspace(1)* @tex_img)
  %hsurf = call i64 @llvm.nvvm.texsurf.handle.internal.p1i64(i64 addrspace(1)* @surf_out)
  %t1 = call { float, float, float, float } @llvm.nvvm.tex.unified.1d.v4f32.s32(i64 %hlut, i32 %i)
  %t1x = extractvalue { float, float, float, float } %t1, 0
  %u = sitofp i32 %i to float
  %v = fmul float %u, 5.000000e-01
  %t2 = call { float, float, float, float } @llvm.nvvm.tex.unified.2d.v4f32.f32(i64 %himg, float %u, float %v)
  %t2y = extractvalue { float, float, float, float } %t2, 1
  %g = call { float, float, float, float } @llvm.nvvm.tld4.unified.r.2d.v4f32.f32(i64 %himg, float %v, float %u)
  %gz = extractvalue { float, float, float, float } %g, 2
  %x4 = shl i32 %i, 2
  %old = call i32 @llvm.nvvm.suld.2d.i32.trap(i64 %hsurf, i32 %x4, i32 %w)
  %inc = add i32 %old, 1
  call void @llvm.nvvm.sust.b.2d.i32.trap(i64 %hsurf, i32 %x4, i32 %w, i32 %inc)
  %tw = call i32 @llvm.nvvm.txq.width(i64 %hlut)
  %twf = sitofp i32 %tw to float
  %s0 = fadd float %t1x, %t2y
  %s1 = fadd float %s0, %gz
  %s2 = fadd float %s1, %twf
  %idx = sext i32 %i to i64
  %p = getelementptr inbounds float, float addrspace(1)* %out, i64 %idx
  store float %s2, float addrspace(1)* %p, align 4
  ret void
}

; Bindless (texture object) handles passed as kernel parameters.
define void @tex_by_object(i64 %tex2d, i64 %tex3d, i64 %surf1d, i32 addrspace(1)* %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %f = uitofp i32 %tid to float
  %a = call { i32, i32, i32, i32 } @llvm.nvvm.tex.unified.2d.v4s32.f32(i64 %tex2d, float %f, float 2.500000e-01)
  %ax = extractvalue { i32, i32, i32, i32 } %a, 0
  %b = call { float, float, float, float } @llvm.nvvm.tex.unified.3d.v4f32.f32(i64 %tex3d, float %f, float %f, float 1.000000e+00)
  %bw = extractvalue { float, float, float, float } %b, 3
  %c = call { float, float, float, float } @llvm.nvvm.tex.unified.2d.level.v4f32.f32(i64 %tex2d, float %f, float %f, float 2.000000e+00)
  %cx = extractvalue { float, float, float, float } %c, 0
  %bi = fptosi float %bw to i32
  %ci = fptosi float %cx to i32
  %x4 = shl i32 %tid, 2
  %s = call i32 @llvm.nvvm.suld.1d.i32.clamp(i64 %surf1d, i32 %x4)
  %sum0 = add i32 %ax, %bi
  %sum1 = add i32 %sum0, %ci
  %sum2 = add i32 %sum1, %s
  call void @llvm.nvvm.sust.b.1d.i32.zero(i64 %surf1d, i32 %x4, i32 %sum2)
  %lv = call i32 @llvm.nvvm.txq.num.mipmap.levels(i64 %tex2d)
  %sh = call i32 @llvm.nvvm.suq.height(i64 %surf1d)
  %sum3 = add i32 %sum2, %lv
  %sum4 = add i32 %sum3, %sh
  %idx = zext i32 %tid to i64
  %p = getelementptr inbounds i32, i32 addrspace(1)* %out, i64 %idx
  store i32 %sum4, i32 addrspace(1)* %p, align 4
  ret void
}

!nvvm.annotations = !{!0, !1, !2, !3, !4}
!0 = !{void (float addrspace(1)*, i32)* @tex_by_reference, !"kernel", i32 1}
!1 = !{void (i64, i64, i64, i32 addrspace(1)*)* @tex_by_object, !"kernel", i32 1}
!2 = !{i64 addrspace(1)* @tex_lut, !"texture", i32 1}
!3 = !{i64 addrspace(1)* @tex_img, !"texture", i32 1}
!4 = !{i64 addrspace(1)* @surf_out, !"surface", i32 1}
