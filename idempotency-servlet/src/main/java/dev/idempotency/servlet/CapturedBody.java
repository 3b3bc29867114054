package dev.idempotency.servlet;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.UnsupportedEncodingException;
import java.nio.charset.Charset;
import org.jspecify.annotations.Nullable;

/**
 * The body half of {@link CapturingResponse}: the bytes the application writes, through the one
 * output stream or the one writer the servlet API lets it take, held in memory until the filter has
 * stored them and writes them. Once the response is closed (by {@code sendError} or {@code
 * sendRedirect}) every later write is discarded. Apart from the response so that the response keeps
 * the status, the headers and their servlet rules, and this class the bytes. One per request; not
 * thread-safe, as a servlet response is not.
 */
final class CapturedBody {
  /** Chooses the writer's charset when the application first asks for the writer. */
  @FunctionalInterface
  interface CharsetChoice {
    Charset choose() throws UnsupportedEncodingException;
  }

  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private boolean closed;

  /** What the application writes to; discards everything once the response is closed. */
  private final OutputStream sink =
      new OutputStream() {
        @Override
        public void write(int b) {
          if (!closed) {
            bytes.write(b);
          }
        }

        @Override
        public void write(byte[] b, int off, int len) {
          if (!closed) {
            bytes.write(b, off, len);
          }
        }
      };

  private @Nullable ServletOutputStream stream;
  private @Nullable PrintWriter writer;

  /** The output stream, the same one on every call; refused once the writer was taken. */
  ServletOutputStream outputStream() {
    if (writer != null) {
      throw new IllegalStateException("getWriter() was already called");
    }
    if (stream == null) {
      stream =
          new ServletOutputStream() {
            @Override
            public void write(int b) throws IOException {
              sink.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
              sink.write(b, off, len);
            }

            @Override
            public boolean isReady() {
              return true;
            }

            @Override
            public void setWriteListener(WriteListener listener) {
              throw new IllegalStateException(BufferedBodyRequest.ASYNC_REFUSED);
            }
          };
    }
    return stream;
  }

  /**
   * The writer, the same one on every call, in the charset {@code charset} chooses on the first
   * call (the only call that asks it); refused once the output stream was taken.
   */
  PrintWriter writer(CharsetChoice charset) throws UnsupportedEncodingException {
    if (stream != null) {
      throw new IllegalStateException("getOutputStream() was already called");
    }
    if (writer == null) {
      writer = new PrintWriter(new OutputStreamWriter(sink, charset.choose()));
    }
    return writer;
  }

  /** Whether the writer was taken: its charset is fixed from then on. */
  boolean writerTaken() {
    return writer != null;
  }

  /** Moves what the writer still buffers into the body. */
  void flush() {
    if (writer != null) {
      writer.flush();
    }
  }

  /** Drops everything written so far, including what the writer still buffers. */
  void clear() {
    flush();
    bytes.reset();
  }

  /** Closes the body: every later write is discarded. */
  void close() {
    closed = true;
  }

  /** Appends {@code last} and closes the body. */
  void closeWith(byte[] last) {
    bytes.writeBytes(last);
    close();
  }

  /** Everything written, including what the writer still buffered. */
  byte[] toByteArray() {
    flush();
    return bytes.toByteArray();
  }
}
