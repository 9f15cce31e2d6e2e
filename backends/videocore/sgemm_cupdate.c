/* The C update of one 16x64 block, after the k-loop: C = alpha*acc + beta*C.
 *
 * The C tile is packed by the host as 64 columns of 16 floats (4 KiB, pitch
 * 64 bytes), so VPM row c holds column c and a horizontal generic access
 * returns it as one vector: no DMA pitch ever approaches the 8191-byte
 * limit, whatever the caller's ldc.  Every QPU uses VPM rows 0..63, so the
 * whole read-modify-write runs under the hardware mutex, 16 columns at a
 * time: the load of chunk j+1 and the store of chunk j overlap the
 * arithmetic of the next chunk, as in py-videocore's kernel.  With
 * beta == 0 C is never loaded (it may hold NaN).
 *
 * Registers here: r1 alpha, r2 beta, r3 C tile address, r0 scratch. */
#include "qpu_asm.h"
#include "vc.h"

#define CHUNK 16
#define CHUNK_BYTES (CHUNK * 64u)

static void ldi(struct hop_qpu_prog *p, int dst, uint32_t v) { hop_qpu_emit_ldi(p, dst, v, false); }

/* Start a DMA (load or store) of chunk j: address r3 + 1 KiB * j. */
static void dma_chunk(struct hop_qpu_prog *p, int addr_reg, unsigned j)
{
  if (j == 0) {
    hop_qpu_emit_mov(p, addr_reg, HOP_QPU_R3, 0);
    return;
  }
  ldi(p, HOP_QPU_R0, CHUNK_BYTES * j);
  hop_qpu_emit_add(p, HOP_QPU_A_ADD, addr_reg, HOP_QPU_R3, HOP_QPU_R0, 0);
}

static void load_chunk(struct hop_qpu_prog *p, unsigned j)
{
  ldi(p, HOP_QPU_VPM_RD_SETUP, hop_qpu_vdr_setup(16, 16, 3, 1, false, CHUNK * j, 0)); /* pitch 8 << 3 */
  dma_chunk(p, HOP_QPU_VPM_LD_ADDR, j);
}

/* vpm <- alpha * acc + beta * vpm for the 16 columns of chunk j, two words a
 * column: the scaled accumulator is written back in place and read two
 * words later (regfile latency); r0 carries beta * C. */
static void scale_chunk(struct hop_qpu_prog *p, unsigned j, bool beta_zero)
{
  int c0 = (int)(CHUNK * j);
  if (beta_zero) {
    for (int c = c0; c < c0 + CHUNK; c++)
      hop_qpu_emit_mul(p, HOP_QPU_M_FMUL, HOP_QPU_VPM_W, hop_vc_acc(c), HOP_QPU_R1, 0);
    return;
  }
  for (int c = c0; c < c0 + CHUNK; c++) {
    struct hop_qpu_alu w = {.mul = {HOP_QPU_M_FMUL, hop_vc_acc(c), hop_vc_acc(c), HOP_QPU_R1, 0, false}};
    if (c > c0)
      w.add = (struct hop_qpu_op){HOP_QPU_A_FADD, HOP_QPU_VPM_W, hop_vc_acc(c - 1), HOP_QPU_R0, 0, false};
    hop_qpu_emit_alu(p, &w);
    hop_qpu_emit_mul(p, HOP_QPU_M_FMUL, HOP_QPU_R0, HOP_QPU_VPM, HOP_QPU_R2, 0);
  }
  hop_qpu_emit_add(p, HOP_QPU_A_FADD, HOP_QPU_VPM_W, hop_vc_acc(c0 + CHUNK - 1), HOP_QPU_R0, 0);
}

void hop_vc_emit_cupdate(struct hop_qpu_prog *p, bool beta_zero, int block_loop)
{
  /* The k-loop's last accumulation; the uniforms go back to the record. */
  struct hop_qpu_alu last = {
    .add = {HOP_QPU_A_FADD, hop_vc_acc(63), hop_vc_acc(63), HOP_QPU_R0, 0, false},
    .mul = {HOP_QPU_M_V8MIN, HOP_QPU_UNIF_ADDR, HOP_QPU_R3, HOP_QPU_R3, 0, false}};
  hop_qpu_emit_alu(p, &last);
  hop_qpu_emit_mov(p, HOP_QPU_NULL, HOP_QPU_MUTEX_ACQ, 0);             /* no uniform read: 1 */
  ldi(p, HOP_QPU_VPM_WR_SETUP, hop_qpu_vdw_stride(0, false));          /* 2: tile rows are contiguous */
  hop_qpu_emit_mov(p, HOP_QPU_R3, HOP_QPU_UNIF, 0);                    /* C tile */
  if (!beta_zero)
    load_chunk(p, 0);
  hop_qpu_emit_mov(p, HOP_QPU_R1, HOP_QPU_UNIF, 0);                    /* alpha */
  hop_qpu_emit_mov(p, HOP_QPU_R2, HOP_QPU_UNIF, 0);                    /* beta */
  for (unsigned j = 0; j < 4; j++) {
    /* Setups in py-videocore's order: wait, generic read and write of this
     * chunk, then the DMA load of the next one. */
    if (!beta_zero) {
      hop_qpu_emit_mov(p, HOP_QPU_NULL, HOP_QPU_LD_WAIT, 0);
      ldi(p, HOP_QPU_VPM_RD_SETUP, hop_qpu_vpm_read_setup(16, 1, true, HOP_QPU_VPM_32, CHUNK * j));
    }
    ldi(p, HOP_QPU_VPM_WR_SETUP, hop_qpu_vpm_write_setup(1, true, HOP_QPU_VPM_32, CHUNK * j));
    if (!beta_zero && j < 3)
      load_chunk(p, j + 1);
    scale_chunk(p, j, beta_zero);
    if (j > 0)
      hop_qpu_emit_mov(p, HOP_QPU_NULL, HOP_QPU_ST_WAIT, 0);
    ldi(p, HOP_QPU_VPM_WR_SETUP, hop_qpu_vdw_setup(16, 16, true, CHUNK * j, 0));
    dma_chunk(p, HOP_QPU_VPM_ST_ADDR, j);
  }
  hop_qpu_emit_mov(p, HOP_QPU_NULL, HOP_QPU_ST_WAIT, 0);
  hop_qpu_emit_mov(p, HOP_QPU_MUTEX_REL, HOP_QPU_IMM(1), 0);
  struct hop_qpu_alu more = {.add = {HOP_QPU_A_OR, HOP_QPU_NULL, HOP_QPU_UNIF, HOP_QPU_UNIF, 0, true}};
  hop_qpu_emit_alu(p, &more);
  hop_qpu_emit_branch(p, HOP_QPU_B_ALL_ZC, block_loop);
  hop_qpu_emit_nop(p, 0);
  hop_qpu_emit_nop(p, 0);
  hop_qpu_emit_nop(p, 0);
}
