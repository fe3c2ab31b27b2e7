package io.rowmatch.spark.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;

/** The bitmap helpers against bit-by-bit references, at every alignment. */
class ShuffleBitsTest {
  private static boolean bit(ArrowBuf b, int i) {
    return (b.getByte(i >>> 3) >>> (i & 7) & 1) != 0;
  }

  private static boolean bit(byte[] b, int i) {
    return (b[i >>> 3] >>> (i & 7) & 1) != 0;
  }

  @Test
  void appendAndSetOnesKeepEarlierBitsAndWriteExactlyTheirRange() {
    Random random = new Random(3);
    try (BufferAllocator allocator = new RootAllocator(); ArrowBuf dst = allocator.buffer(64)) {
      for (int trial = 0; trial < 5000; trial++) {
        int dstBit = random.nextInt(130);
        int count = random.nextInt(Math.min(200, 512 - dstBit) + 1);
        byte[] before = new byte[64];
        random.nextBytes(before);
        dst.setBytes(0, before);
        byte[] record = new byte[3 + (count + 7) / 8 + 8];
        random.nextBytes(record);
        boolean ones = random.nextBoolean();
        if (ones) {
          ShuffleBits.setOnes(dst.memoryAddress(), dstBit, count);
        } else {
          ShuffleBits.append(record, 3, count, dst.memoryAddress(), dstBit);
        }
        for (int i = 0; i < dstBit; i++) {
          assertEquals(bit(before, i), bit(dst, i), "kept bit " + i);
        }
        for (int i = 0; i < count; i++) {
          assertEquals(ones || bit(record, 24 + i), bit(dst, dstBit + i), "bit " + i + " at " + dstBit);
        }
        int end = dstBit + count;
        for (int i = end; count > 0 && (i & 7) != 0; i++) {
          assertEquals(false, bit(dst, i), "padding bit " + i);
        }
        for (int i = (end + 7) / 8; i < 64; i++) {
          assertEquals(before[i], dst.getByte(i), "byte " + i + " past the range");
        }
      }
    }
  }

  @Test
  void gatherPacksChosenRowsWithZeroPadding() {
    Random random = new Random(4);
    try (BufferAllocator allocator = new RootAllocator(); ArrowBuf src = allocator.buffer(128)) {
      for (int trial = 0; trial < 2000; trial++) {
        byte[] source = new byte[128];
        random.nextBytes(source);
        src.setBytes(0, source);
        int count = random.nextInt(300);
        int from = random.nextInt(5);
        int[] rows = new int[from + count];
        for (int i = 0; i < rows.length; i++) {
          rows[i] = random.nextInt(1024);
        }
        byte[] record = new byte[2 + (count + 7) / 8];
        ShuffleBits.gather(src.memoryAddress(), rows, from, count, record, 2);
        for (int i = 0; i < count; i++) {
          assertEquals(bit(source, rows[from + i]), bit(record, 16 + i), "row " + i);
        }
        for (int i = count; i < 8 * (record.length - 2); i++) {
          assertEquals(false, bit(record, 16 + i), "padding " + i);
        }
      }
    }
  }
}
