package dev.idempotency.openapi.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.idempotency.openapi.OpenApiReadException;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * Reads OpenAPI documents with swagger-parser: one file, or every root document of a directory (a
 * file whose top level names {@code openapi}; the others are the fragments they {@code $ref}).
 * Strict (the default): anything the parser reports makes the input unreadable, since a document it
 * had to guess about is not one whose verdicts can be trusted. Lenient: the parser's messages are
 * kept with the document as what could not be read, and the rest is audited.
 *
 * <p>References into the document's own {@code paths}, which the parser misreads, are moved into
 * {@code components} first ({@link PathRefHoister}), in both modes.
 */
public final class DocumentReader {
  /** How deep a directory is searched for documents: deeper trees are someone's whole disk. */
  private static final int MAX_DEPTH = 8;

  /** How many files one document may reference before the rest are not looked at. */
  private static final int MAX_REFERENCED_FILES = 1000;

  /** A {@code $ref} and its value, in YAML or JSON. */
  private static final Pattern REF =
      Pattern.compile("\\$ref[\"']?\\s*:\\s*[\"']?([^\"'\\s,}\\]]+)");

  private DocumentReader() {}

  /**
   * A document read, the name it is reported under, and what the parser could not read in it
   * (always empty when strict).
   */
  public record Document(String name, OpenAPI api, List<String> problems) {
    /** Copies the problems. */
    public Document {
      problems = List.copyOf(problems);
    }
  }

  /**
   * Reads {@code input} strictly.
   *
   * @throws OpenApiReadException when the input is missing, holds no document, or any document has
   *     a parser message
   */
  public static List<Document> read(Path input) {
    return read(input, false);
  }

  /**
   * Reads {@code input}; {@code lenient} keeps the parser's messages with each document instead of
   * refusing it.
   *
   * @throws OpenApiReadException when the input is missing or holds no document, when a document is
   *     not OpenAPI 3.0 or 3.1 at all, or (strict) when any document has a parser message
   */
  public static List<Document> read(Path input, boolean lenient) {
    if (Files.isDirectory(input)) {
      List<Path> roots = rootDocuments(input);
      if (roots.isEmpty()) {
        throw new OpenApiReadException(
            input.toString(),
            List.of(
                "no OpenAPI document in the directory (a .yaml, .yml or .json file whose top level"
                    + " has \"openapi\")"));
      }
      List<Document> documents = new ArrayList<>();
      for (Path root : roots) {
        documents.add(readFile(root, input.relativize(root).toString(), lenient));
      }
      return documents;
    }
    return List.of(readFile(input, input.toString(), lenient));
  }

  private static Document readFile(Path file, String name, boolean lenient) {
    if (!Files.isRegularFile(file)) {
      throw new OpenApiReadException(name, List.of("no such file"));
    }
    String text = refuseRemoteRefs(file, name);
    ParseOptions options = new ParseOptions();
    // internal and cross-file $refs of parameters, responses and headers are followed; schemas are
    // not inlined (resolveFully would copy them into every use, costly on large documents)
    options.setResolve(true);
    SwaggerParseResult result;
    // a file: URI, against which relative $refs to other files resolve
    String location = file.toAbsolutePath().toUri().toString();
    try {
      String hoisted = PathRefHoister.mayHavePathRefs(text) ? hoisted(file) : null;
      result =
          hoisted == null
              ? new OpenAPIV3Parser().readLocation(location, null, options)
              : new OpenAPIV3Parser().readContents(hoisted, null, options, location);
    } catch (RuntimeException e) {
      // the parser reports most failures as messages; what it throws still names the input
      throw new OpenApiReadException(name, List.of(String.valueOf(e.getMessage())));
    }
    // the parser repeats a message once per use of what it is about
    List<String> messages =
        result.getMessages() == null
            ? List.of()
            : List.copyOf(new LinkedHashSet<>(result.getMessages()));
    OpenAPI api = result.getOpenAPI();
    if (api == null || (!lenient && !messages.isEmpty())) {
      throw new OpenApiReadException(
          name, messages.isEmpty() ? List.of("not an OpenAPI 3.0 or 3.1 document") : messages);
    }
    String version = api.getOpenapi();
    if (version == null || !(version.startsWith("3.0") || version.startsWith("3.1"))) {
      throw new OpenApiReadException(
          name, List.of("openapi: " + version + " is not 3.0 or 3.1 (Swagger 2.0 is not read)"));
    }
    return new Document(name, api, messages);
  }

  /**
   * The document with its references into paths moved into components, as JSON text; null when it
   * has none after all (the text only mentioned one).
   */
  private static @Nullable String hoisted(Path file) {
    try {
      JsonNode tree = mapperFor(file).readTree(file.toFile());
      return tree != null && PathRefHoister.hoist(tree) > 0 ? PathRefHoister.text(tree) : null;
    } catch (IOException e) {
      // the parser reads it next and names the problem with its line
      return null;
    }
  }

  private static ObjectMapper mapperFor(Path p) {
    return p.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".json")
        ? new ObjectMapper()
        : new YAMLMapper();
  }

  /**
   * Refuses a document when it, or a file it references (transitively), has a {@code $ref} to an
   * http(s) URL: the parser would fetch it, and a document's author may point it at loopback or a
   * private network, whose services would answer a request this tool makes on the reader's behalf.
   * swagger-parser's own guard ({@code safelyResolveURL}) also refuses relative references to
   * files, so this one follows the references through the files before the parser does.
   *
   * @return the text of {@code file} itself (read as ISO-8859-1: the references are ASCII)
   */
  private static String refuseRemoteRefs(Path file, String name) {
    List<String> remote = new ArrayList<>();
    Set<Path> seen = new HashSet<>();
    Path start = file.toAbsolutePath().normalize();
    Deque<Path> queue = new ArrayDeque<>(List.of(start));
    String rootText = "";
    try {
      while (!queue.isEmpty() && seen.size() < MAX_REFERENCED_FILES) {
        Path f = queue.poll();
        if (!seen.add(f) || !Files.isRegularFile(f)) {
          continue;
        }
        // ISO-8859-1 reads any bytes; the references and URLs looked for are ASCII
        String text = Files.readString(f, StandardCharsets.ISO_8859_1);
        if (f.equals(start)) {
          rootText = text;
        }
        Matcher m = REF.matcher(text);
        while (m.find()) {
          String target = m.group(1);
          if (target.regionMatches(true, 0, "http:", 0, 5)
              || target.regionMatches(true, 0, "https:", 0, 6)) {
            remote.add(f.getFileName() + ": $ref " + target);
          } else if (!target.startsWith("#")) {
            int hash = target.indexOf('#');
            String part = hash < 0 ? target : target.substring(0, hash);
            if (!part.isEmpty() && !part.contains(":")) {
              queue.add(f.resolveSibling(part).normalize());
            }
          }
        }
      }
    } catch (IOException e) {
      throw new OpenApiReadException(name, List.of(String.valueOf(e)));
    }
    if (!remote.isEmpty()) {
      remote.add(
          "remote $refs are not followed: bundle the document into local files first (for"
              + " example with swagger-cli bundle or redocly bundle)");
      throw new OpenApiReadException(name, remote);
    }
    return rootText;
  }

  private static List<Path> rootDocuments(Path directory) {
    try (Stream<Path> files = Files.walk(directory, MAX_DEPTH)) {
      return files
          .filter(Files::isRegularFile)
          .filter(DocumentReader::hasDocumentExtension)
          .sorted()
          .filter(DocumentReader::namesOpenApi)
          .toList();
    } catch (IOException e) {
      throw new OpenApiReadException(directory.toString(), List.of(String.valueOf(e)));
    } catch (UncheckedIOException e) {
      throw new OpenApiReadException(directory.toString(), List.of(String.valueOf(e.getCause())));
    }
  }

  private static boolean hasDocumentExtension(Path p) {
    String n = p.getFileName().toString().toLowerCase(Locale.ROOT);
    return n.endsWith(".yaml") || n.endsWith(".yml") || n.endsWith(".json");
  }

  /**
   * Whether the file's top level has {@code openapi}. A file that does not parse makes the input
   * unreadable: it may be the root document the caller meant.
   */
  private static boolean namesOpenApi(Path p) {
    try {
      JsonNode tree = mapperFor(p).readTree(p.toFile());
      return tree != null && tree.isObject() && tree.has("openapi");
    } catch (IOException e) {
      throw new OpenApiReadException(p.toString(), List.of(String.valueOf(e.getMessage())));
    }
  }
}
