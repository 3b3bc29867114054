package dev.idempotency.openapi;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The command line's JSON report on a document, read back: what the vendor documents' tests assert
 * on, through the interface a user has.
 */
final class VendorDocuments {
  private VendorDocuments() {}

  /** A {@code check --format json} run: its exit status, report and messages. */
  record Checked(int status, JsonNode json, String err) {
    /** The operation {@code METHOD /path}. */
    JsonNode op(String name) {
      for (JsonNode o : json.get("operations")) {
        if ((o.get("method").asText() + " " + o.get("path").asText()).equals(name)) {
          return o;
        }
      }
      throw new AssertionError("no operation " + name);
    }

    /** The count of a verdict (0 when the report does not name it). */
    int verdicts(String verdict) {
      JsonNode n = json.get("verdicts").get(verdict);
      return n == null ? 0 : n.asInt();
    }

    /** The names of the operations with {@code verdict}. */
    List<String> withVerdict(String verdict) {
      List<String> names = new ArrayList<>();
      for (JsonNode o : json.get("operations")) {
        if (o.get("verdict").asText().equals(verdict)) {
          names.add(o.get("method").asText() + " " + o.get("path").asText());
        }
      }
      return names;
    }

    /** The finding codes of an operation. */
    List<String> codes(String name) {
      List<String> codes = new ArrayList<>();
      op(name).get("findings").forEach(f -> codes.add(f.get("code").asText()));
      return codes;
    }
  }

  /** {@code check DOCUMENT --format json OPTIONS}, which must print a report. */
  static Checked check(String document, String... options) {
    List<String> args = new ArrayList<>(List.of("check", document, "--format", "json"));
    args.addAll(Arrays.asList(options));
    CrossFileAndUnreadableTest.Run run =
        CrossFileAndUnreadableTest.cli(args.toArray(String[]::new));
    assertThat(run.out()).as(run.err()).isNotEmpty();
    try {
      return new Checked(run.status(), new ObjectMapper().readTree(run.out()), run.err());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
