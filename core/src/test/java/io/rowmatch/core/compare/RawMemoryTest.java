package io.rowmatch.core.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;

/** equalBytes against a byte-by-byte loop: every length 0..40, a difference at every position. */
class RawMemoryTest {
  @Test
  void equalBytesFindsADifferenceAtEveryPositionOfEveryLength() {
    try (BufferAllocator allocator = new RootAllocator(); ArrowBuf a = allocator.buffer(64);
        ArrowBuf b = allocator.buffer(64)) {
      for (int i = 0; i < 64; i++) {
        a.setByte(i, i * 7);
        b.setByte(i, i * 7);
      }
      for (int len = 0; len <= 40; len++) {
        assertEquals(true, RawMemory.equalBytes(a.memoryAddress() + 3, b.memoryAddress() + 3, len), "len " + len);
        for (int pos = 0; pos < len; pos++) {
          b.setByte(3 + pos, b.getByte(3 + pos) ^ 0x10);
          assertEquals(false, RawMemory.equalBytes(a.memoryAddress() + 3, b.memoryAddress() + 3, len),
              "len " + len + " diff at " + pos);
          b.setByte(3 + pos, b.getByte(3 + pos) ^ 0x10);
        }
        // A difference just outside the range is not looked at.
        b.setByte(3 + len, b.getByte(3 + len) ^ 0x10);
        b.setByte(2, b.getByte(2) ^ 0x10);
        assertEquals(true, RawMemory.equalBytes(a.memoryAddress() + 3, b.memoryAddress() + 3, len), "len " + len);
        b.setByte(3 + len, b.getByte(3 + len) ^ 0x10);
        b.setByte(2, b.getByte(2) ^ 0x10);
      }
    }
  }
}
