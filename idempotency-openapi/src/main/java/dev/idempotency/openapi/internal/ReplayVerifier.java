package dev.idempotency.openapi.internal;

import dev.idempotency.openapi.KeyDeclaration;
import dev.idempotency.openapi.OperationReport;
import dev.idempotency.openapi.Verdict;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeoutException;

/**
 * {@code verify}: sends each operation that claims a retry is harmless (a PUT or DELETE, a keyed
 * operation, one marked {@code x-idempotent}, one confirmed read-only) twice, the keyed ones with
 * one key, and compares the second answer, and the state probe's answer after each, with the first.
 * A PUT or DELETE without a key needs the probe: a PUT that appends can answer {@code 204} both
 * times, so equal answers prove nothing about the state. A DELETE may answer {@code 204} then
 * {@code 404}: the thing is gone either way.
 */
public final class ReplayVerifier {
  /** How one operation fared. */
  public enum Status {
    /** Both answers, and both probes, equal (a DELETE's gone-again answer counts as equal). */
    SAME,
    /** A difference: listed in the details. */
    DIFFERS,
    /**
     * The answers were equal, but a PUT or DELETE without a key was sent with no state probe, so
     * what it did to the state is unknown.
     */
    UNPROVEN,
    /** Not sent: no request could be built; the details say why. */
    SKIPPED,
    /** A request failed (refused, timed out); the details say how. */
    ERROR
  }

  /** One operation's result. */
  public record Result(String operation, Status status, List<String> details) {}

  private static final Set<Verdict> CLAIMS_HARMLESS_RETRY =
      Set.of(
          Verdict.ACCEPTS_KEY,
          Verdict.ACCEPTS_KEY_IN_BODY,
          Verdict.CONFIRMED_SAFE,
          Verdict.IDEMPOTENT_BY_METHOD,
          Verdict.VERIFIED_IDEMPOTENT);

  private final HttpTarget target;
  private final Set<String> ignored;

  private ReplayVerifier(HttpTarget target, Set<String> ignored) {
    this.target = target;
    this.ignored = Set.copyOf(ignored);
  }

  /** A verifier sending to {@code target}, not comparing the JSON members named {@code ignored}. */
  static ReplayVerifier to(HttpTarget target, Set<String> ignored) {
    return new ReplayVerifier(target, ignored);
  }

  /**
   * Verifies every operation of {@code reports} that claims a harmless retry.
   *
   * @param documents the documents the reports came from
   * @param fromFile the user's requests by operation ({@code "PUT /orders/{id}"} or operationId)
   */
  public List<Result> verify(
      List<DocumentReader.Document> documents,
      List<OperationReport> reports,
      Map<String, RequestPlanner.Planned> fromFile) {
    List<Result> results = new ArrayList<>();
    for (OperationReport report : reports) {
      if (!CLAIMS_HARMLESS_RETRY.contains(report.verdict())) {
        continue;
      }
      RequestPlanner.Plan plan = plan(documents, report, fromFile);
      RequestPlanner.Planned planned = plan.request();
      if (planned == null) {
        results.add(new Result(report.name(), Status.SKIPPED, List.of(plan.skipReason())));
        continue;
      }
      results.add(verifyOne(report, planned));
    }
    return results;
  }

  /** The user's request for the operation, else one built from the document's examples. */
  static RequestPlanner.Plan plan(
      List<DocumentReader.Document> documents,
      OperationReport report,
      Map<String, RequestPlanner.Planned> fromFile) {
    RequestPlanner.Planned planned = fromFile.get(report.name());
    String id = report.operationId();
    if (planned == null && id != null) {
      planned = fromFile.get(id);
    }
    if (planned != null) {
      return new RequestPlanner.Plan(planned, "");
    }
    for (DocumentReader.Document d : documents) {
      if (!d.name().equals(report.document()) || d.api().getPaths() == null) {
        continue;
      }
      PathItem item = d.api().getPaths().get(report.path());
      if (item == null) {
        break;
      }
      Operation op = item.readOperationsMap().get(PathItem.HttpMethod.valueOf(report.method()));
      if (op != null) {
        return RequestPlanner.fromExamples(report.path(), item, op, new Components(d.api()));
      }
    }
    return RequestPlanner.Plan.skip("the operation is not in its document");
  }

  private Result verifyOne(OperationReport report, RequestPlanner.Planned p) {
    KeyDeclaration k = report.key();
    boolean keyed = k != null;
    boolean needsProbe =
        !keyed && (report.method().equals("PUT") || report.method().equals("DELETE"));
    Outgoing request = p.request(report.method());
    try {
      if (k != null) {
        request = KeyedRequests.withKey(request, k, "openapi-verify-" + UUID.randomUUID());
      }
      Outgoing probe = p.probeRequest();
      Answer first = target.send(request);
      Answer probe1 = probe == null ? null : target.send(probe);
      Answer second = target.send(request);
      Answer probe2 = probe == null ? null : target.send(probe);
      List<String> details = new ArrayList<>();
      boolean differs;
      boolean deleteGone =
          report.method().equals("DELETE") && AnswerComparison.deleteEquivalent(first, second);
      if (deleteGone) {
        // the thing is gone either way: the probe, not the answer, shows what the second did
        details.add(
            "answers "
                + first.status()
                + " then "
                + second.status()
                + ": the usual answers of a repeated DELETE");
        differs = false;
      } else {
        details.addAll(AnswerComparison.differences("answer", first, second, ignored));
        differs = !details.isEmpty();
      }
      if (probe1 != null && probe2 != null) {
        List<String> probed = AnswerComparison.differences("probe", probe1, probe2, ignored);
        differs |= !probed.isEmpty();
        details.addAll(probed);
      }
      if (differs) {
        return new Result(report.name(), Status.DIFFERS, details);
      }
      if (probe == null && needsProbe) {
        details.add(
            "the answers were equal ("
                + first
                + "), but "
                + report.method()
                + " without a key was sent with no state probe: an appending PUT answers the same"
                + " too. The document has no GET of this path; give \"probe\" in --requests");
        return new Result(report.name(), Status.UNPROVEN, details);
      }
      String probed =
          probe == null || probe1 == null
              ? ""
              : "probe "
                  + probe.path()
                  + " "
                  + probe1
                  + (p.probeFromDocument() ? " (the document's GET)" : "");
      details.add(
          deleteGone
              ? (probed.isEmpty() ? "no state probe" : probed + " the same after each")
              : "answers " + first + (probed.isEmpty() ? "" : ", " + probed) + " equal");
      return new Result(report.name(), Status.SAME, details);
    } catch (KeyedRequests.KeyPlacementException e) {
      return new Result(report.name(), Status.SKIPPED, List.of(e.getMessage()));
    } catch (IOException | TimeoutException e) {
      return new Result(report.name(), Status.ERROR, List.of(String.valueOf(e)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(report.name(), Status.ERROR, List.of("interrupted"));
    }
  }
}
