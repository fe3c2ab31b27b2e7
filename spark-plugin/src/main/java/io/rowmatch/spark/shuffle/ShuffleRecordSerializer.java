package io.rowmatch.spark.shuffle;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;

import org.apache.spark.serializer.DeserializationStream;
import org.apache.spark.serializer.SerializationStream;
import org.apache.spark.serializer.Serializer;
import org.apache.spark.serializer.SerializerInstance;
import org.apache.spark.sql.execution.metric.SQLMetric;
import scala.Tuple2;
import scala.collection.AbstractIterator;
import scala.collection.Iterator;
import scala.reflect.ClassTag;

/**
 * The Spark serializer of the Arrow shuffle. Map-side records are (partition id, encoded rows); only the
 * bytes travel, each prefixed by its length (the partition id already chose the block, as with Spark's
 * UnsafeRowSerializer). Records are self-contained, so Spark may reorder serialized records
 * (supportsRelocationOfSerializedObjects) and use its serialized sort-shuffle path above 200 partitions.
 */
public final class ShuffleRecordSerializer extends Serializer implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Bytes encoded, for the exchange's "encoded size" metric (before Spark's compression). */
  private final SQLMetric encodedSize;

  public ShuffleRecordSerializer(SQLMetric encodedSize) {
    this.encodedSize = encodedSize;
  }

  @Override
  public SerializerInstance newInstance() {
    return new Instance(encodedSize);
  }

  @Override
  public boolean supportsRelocationOfSerializedObjects() {
    return true;
  }

  private static final class Instance extends SerializerInstance {
    private final SQLMetric encodedSize;

    Instance(SQLMetric encodedSize) {
      this.encodedSize = encodedSize;
    }

    @Override
    public SerializationStream serializeStream(OutputStream out) {
      return new Writer(out, encodedSize);
    }

    @Override
    public DeserializationStream deserializeStream(InputStream in) {
      return new Reader(in);
    }

    @Override
    public <T> ByteBuffer serialize(T t, ClassTag<T> tag) {
      throw new UnsupportedOperationException("the Arrow shuffle serializer only streams records");
    }

    @Override
    public <T> T deserialize(ByteBuffer bytes, ClassTag<T> tag) {
      throw new UnsupportedOperationException("the Arrow shuffle serializer only streams records");
    }

    @Override
    public <T> T deserialize(ByteBuffer bytes, ClassLoader loader, ClassTag<T> tag) {
      throw new UnsupportedOperationException("the Arrow shuffle serializer only streams records");
    }
  }

  private static final class Writer extends SerializationStream {
    private final DataOutputStream out;
    private final SQLMetric encodedSize;

    Writer(OutputStream out, SQLMetric encodedSize) {
      this.out = new DataOutputStream(out);
      this.encodedSize = encodedSize;
    }

    @Override
    public <T> SerializationStream writeKey(T key, ClassTag<T> tag) {
      if (!(key instanceof Integer)) {
        throw new IllegalArgumentException("Arrow shuffle keys are partition ids, got " + key);
      }
      return this; // the partition id chose the block; it is not written
    }

    @Override
    public <T> SerializationStream writeValue(T value, ClassTag<T> tag) {
      if (!(value instanceof byte[] record)) {
        throw new IllegalArgumentException("Arrow shuffle values are encoded records, got "
            + (value == null ? "null" : value.getClass().getName()));
      }
      try {
        out.writeInt(record.length);
        out.write(record);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      if (encodedSize != null) {
        encodedSize.add(record.length);
      }
      return this;
    }

    @Override
    public <T> SerializationStream writeObject(T t, ClassTag<T> tag) {
      throw new UnsupportedOperationException("the Arrow shuffle writes keys and values only");
    }

    @Override
    public void flush() {
      try {
        out.flush();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public void close() {
      try {
        out.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  private static final class Reader extends DeserializationStream {
    private static final Integer NO_KEY = 0;
    private final DataInputStream in;

    Reader(InputStream in) {
      this.in = new DataInputStream(in);
    }

    /** The next record, or null at the end of the stream. */
    byte[] nextRecord() {
      int length;
      try {
        length = in.readInt();
      } catch (EOFException end) {
        return null;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      if (length < 0) {
        throw new IllegalStateException("corrupt Arrow shuffle stream: record length " + length);
      }
      byte[] record = new byte[length];
      try {
        in.readFully(record);
      } catch (EOFException e) {
        throw new IllegalStateException("corrupt Arrow shuffle stream: a record of " + length
            + " bytes ends early", e);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return record;
    }

    @Override
    public Iterator<Tuple2<Object, Object>> asKeyValueIterator() {
      return new AbstractIterator<Tuple2<Object, Object>>() {
        private byte[] next = nextRecord();

        @Override
        public boolean hasNext() {
          if (next == null) {
            close();
          }
          return next != null;
        }

        @Override
        public Tuple2<Object, Object> next() {
          if (next == null) {
            throw new java.util.NoSuchElementException();
          }
          Tuple2<Object, Object> kv = new Tuple2<>(NO_KEY, next);
          next = nextRecord();
          return kv;
        }
      };
    }

    @Override
    public Iterator<Object> asIterator() {
      throw new UnsupportedOperationException("the Arrow shuffle reads keys and values");
    }

    @Override
    public <T> T readKey(ClassTag<T> tag) {
      throw new UnsupportedOperationException("the Arrow shuffle reads records through asKeyValueIterator");
    }

    @Override
    public <T> T readValue(ClassTag<T> tag) {
      throw new UnsupportedOperationException("the Arrow shuffle reads records through asKeyValueIterator");
    }

    @Override
    public <T> T readObject(ClassTag<T> tag) {
      throw new UnsupportedOperationException("the Arrow shuffle reads records through asKeyValueIterator");
    }

    @Override
    public void close() {
      try {
        in.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
