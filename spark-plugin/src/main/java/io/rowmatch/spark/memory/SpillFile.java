package io.rowmatch.spark.memory;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.WriteChannel;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.SparkEnv;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.storage.BlockId;
import org.apache.spark.storage.TempLocalBlockId;
import scala.Tuple2;

import io.rowmatch.spark.arrow.ArrowSchemas;

/**
 * One spill file of Arrow batches of one schema: a temporary block in Spark's local directories (its
 * DiskBlockManager), written as an Arrow IPC stream through Spark's SerializerManager, so Spark's spill
 * compression ({@code spark.shuffle.spill.compress}, {@code spark.io.compression.codec}) and I/O encryption
 * apply as to Spark's own spills. Written once, then read once; {@link #delete} removes the file (operators
 * call it when a partition is done and from their close, which runs on success, failure and task kill).
 */
public final class SpillFile implements AutoCloseable {
  private static final AtomicInteger OPEN = new AtomicInteger();

  private final BlockId blockId;
  private final File file;
  private final Schema schema;
  private CountingStream counted;
  private OutputStream out;
  private WriteChannel channel;
  private long rows;
  private long batches;
  private boolean deleted;

  private SpillFile(BlockId blockId, File file, Schema schema) {
    this.blockId = blockId;
    this.file = file;
    this.schema = schema;
  }

  /** A new, empty spill file in Spark's local directories (a JVM temp file outside an executor, in tests). */
  public static SpillFile create(Schema schema) {
    SparkEnv env = SparkEnv.get();
    BlockId id;
    File f;
    try {
      if (env != null && env.blockManager() != null) {
        Tuple2<TempLocalBlockId, File> block = env.blockManager().diskBlockManager().createTempLocalBlock();
        id = block._1();
        f = block._2();
      } else {
        id = null;
        f = Files.createTempFile("rowmatch-spill", ".arrow").toFile();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a Rowmatch spill file", e);
    }
    OPEN.incrementAndGet();
    return new SpillFile(id, f, schema);
  }

  /** Spill files created and not yet deleted in this JVM (tests assert it returns to zero). */
  public static int openFiles() {
    return OPEN.get();
  }

  /** Appends {@code rows} rows of these columns (the file's schema) as one record batch. */
  public void write(List<FieldVector> columns, int rowCount) {
    if (rowCount == 0) {
      return;
    }
    try {
      if (channel == null) {
        counted = new CountingStream(new FileOutputStream(file));
        OutputStream wrapped = blockId == null ? counted
            : SparkEnv.get().serializerManager().wrapStream(blockId, counted);
        out = new BufferedOutputStream(wrapped, 64 << 10);
        channel = new WriteChannel(Channels.newChannel(out));
        MessageSerializer.serialize(channel, schema);
      }
      VectorSchemaRoot root = new VectorSchemaRoot(schema.getFields(), columns, rowCount);
      try (ArrowRecordBatch batch = new VectorUnloader(root).getRecordBatch()) {
        MessageSerializer.serialize(channel, batch);
      }
      rows += rowCount;
      batches++;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write Rowmatch spill file " + file, e);
    }
  }

  /** Pushes what was written to the file, so {@link #bytesWritten} counts it. */
  public void flush() {
    if (out != null) {
      try {
        out.flush();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write Rowmatch spill file " + file, e);
      }
    }
  }

  /** Ends the stream; the file is ready to be read. */
  public void finish() {
    if (channel == null) {
      return;
    }
    try {
      ArrowStreamWriter.writeEndOfStream(channel, IpcOption.DEFAULT);
      out.close();
      channel = null;
      out = null;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write Rowmatch spill file " + file, e);
    }
  }

  public long rows() {
    return rows;
  }

  /** Bytes on disk (after compression). */
  public long bytesWritten() {
    return counted == null ? 0 : counted.count;
  }

  /**
   * The batches written, in order, each a batch of ArrowColumnVectors valid until the next call to hasNext
   * (the reader reuses its vectors); closing the iterator (or reading to the end) releases them.
   */
  public BatchReader read(BufferAllocator allocator) {
    finish();
    return new BatchReader(allocator);
  }

  /** Reads one spill file back batch by batch. */
  public final class BatchReader implements Iterator<ColumnarBatch>, AutoCloseable {
    private final ArrowStreamReader reader;
    private boolean loaded;
    private boolean done;

    private BatchReader(BufferAllocator allocator) {
      if (batches == 0) {
        reader = null;
        done = true;
        return;
      }
      try {
        InputStream in = new BufferedInputStream(new FileInputStream(file), 64 << 10);
        reader = new ArrowStreamReader(blockId == null ? in : SparkEnv.get().serializerManager().wrapStream(blockId,
            in), allocator);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read Rowmatch spill file " + file, e);
      }
    }

    @Override
    public boolean hasNext() {
      if (done) {
        return false;
      }
      if (loaded) {
        return true;
      }
      try {
        loaded = reader.loadNextBatch();
      } catch (IOException e) {
        close();
        throw new UncheckedIOException("cannot read Rowmatch spill file " + file, e);
      }
      if (!loaded) {
        close();
      }
      return loaded;
    }

    @Override
    public ColumnarBatch next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      loaded = false;
      try {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        ColumnarBatch batch = ArrowSchemas.sparkBatch(root.getFieldVectors());
        batch.setNumRows(root.getRowCount());
        return batch;
      } catch (IOException e) {
        close();
        throw new UncheckedIOException("cannot read Rowmatch spill file " + file, e);
      }
    }

    @Override
    public void close() {
      if (reader != null && !done) {
        done = true;
        try {
          reader.close();
        } catch (IOException e) {
          throw new UncheckedIOException("cannot close Rowmatch spill file " + file, e);
        }
      }
      done = true;
    }
  }

  /** Removes the file (idempotent). */
  public void delete() {
    if (deleted) {
      return;
    }
    deleted = true;
    OPEN.decrementAndGet();
    try {
      if (out != null) {
        out.close();
      }
    } catch (IOException ignored) {
      // deleting anyway
    } finally {
      out = null;
      channel = null;
      if (file.exists() && !file.delete()) {
        file.deleteOnExit();
      }
    }
  }

  @Override
  public void close() {
    delete();
  }

  @Override
  public String toString() {
    return "SpillFile(" + file + ", " + rows + " rows)";
  }

  private static final class CountingStream extends OutputStream {
    private final OutputStream out;
    private long count;

    CountingStream(OutputStream out) {
      this.out = out;
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
      count++;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
      count += len;
    }

    @Override
    public void flush() throws IOException {
      out.flush();
    }

    @Override
    public void close() throws IOException {
      out.close();
    }
  }
}
