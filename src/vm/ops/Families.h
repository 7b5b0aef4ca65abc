// The instruction families: each decodes the PTX instructions it owns into micro-ops whose handlers
// are instantiated for the exact type and modifiers. Decoder.cpp routes an opcode to its family.
#pragma once

#include "vm/Decoder.h"
#include "vm/Events.h"

namespace ptxray::vm::ops {

void decodeIntegerArithmetic(DecodeContext &,
                             MicroOp &); // add sub mul mad mul24 mad24 sad div rem abs neg min max (integer)
void decodeBitOps(
    DecodeContext &,
    MicroOp &); // and or xor not cnot shl shr lop3 bfe bfi brev bfind clz popc fns prmt shf bmsk szext dp2a dp4a
void decodeExtendedPrecision(DecodeContext &, MicroOp &); // add.cc addc sub.cc subc mad.cc madc
void decodeFloatArithmetic(DecodeContext &, MicroOp &);   // every float form of add sub mul fma mad div abs neg min max
                                                          // rcp sqrt rsqrt sin cos lg2 ex2 tanh copysign testp
void decodeCompare(DecodeContext &, MicroOp &);           // setp set selp slct
void decodeConvert(DecodeContext &, MicroOp &);           // cvt cvt.pack
void decodeMove(DecodeContext &, MicroOp &);              // mov cvta isspacep
void decodeMemory(DecodeContext &, MicroOp &);            // ld ldu st prefetch prefetchu
void decodeAtomic(DecodeContext &, MicroOp &);            // atom red
void decodeWarp(DecodeContext &, MicroOp &);              // shfl vote match redux activemask elect
void decodeControl(DecodeContext &, MicroOp &);           // bra brx call ret exit trap brkpt
void decodeSync(DecodeContext &, MicroOp &);              // bar barrier membar fence nanosleep
void decodeTexture(DecodeContext &, MicroOp &);           // tex tld4 txq istypep suld sust sured suq
void decodeAsync(DecodeContext &, MicroOp &);             // cp.async (incl. bulk), mbarrier

/// A micro-op that does nothing (hints: prefetch, pmevent, applypriority...).
void decodeNop(DecodeContext &, MicroOp &);
/// Barriers waiting for every live thread that exits have completed (Sync.cpp).
void releaseWaitingBarriers(ExecContext &ctx);
/// Tells the listener about a warp-synchronizing instruction (call only when ctx.listener is set):
/// `memberMask` the membermask operand's lanes (nullptr: legacy form, no mask), `sourceLanes` the
/// lane each executing lane reads (shfl; nullptr otherwise). Warp.cpp.
void emitWarpSyncEvent(ExecContext &ctx, const MicroOp &op, WarpSyncOp kind, const uint64_t *memberMask,
                       const uint8_t *sourceLanes);

} // namespace ptxray::vm::ops
