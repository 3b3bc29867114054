package dev.idempotency.spring.boot.autoconfigure.internal;

import jakarta.persistence.EntityManagerFactory;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.orm.jpa.EntityManagerFactoryInfo;
import org.springframework.util.ClassUtils;

/**
 * The application's JPA {@link EntityManagerFactory} that joins the store's transaction where the
 * auto-configuration binds it as Spring's: its one EntityManagerFactory, when it is Hibernate's and
 * Spring built it on the store's {@code DataSource} (as Spring Boot's is), with spring-orm present.
 * A factory on another database, or one whose {@code DataSource} Spring does not know, keeps its
 * own transactions: a session on the store's connection would send its writes to the store's
 * database. Another provider's keeps them too: the binding opens a Hibernate session.
 *
 * <p>Only this class names JPA's types; call {@link #find} and {@link #lazily} only when {@link
 * #present()}, so that an application without JPA never loads them.
 */
public final class JoinedEntityManagerFactory {
  private static final String HIBERNATE = "org.hibernate.SessionFactory";
  private static final boolean PRESENT = present(JoinedEntityManagerFactory.class.getClassLoader());

  private JoinedEntityManagerFactory() {}

  private static boolean present(@Nullable ClassLoader loader) {
    return ClassUtils.isPresent("jakarta.persistence.EntityManagerFactory", loader)
        && ClassUtils.isPresent(HIBERNATE, loader)
        && ClassUtils.isPresent("org.springframework.orm.jpa.EntityManagerHolder", loader);
  }

  /** Whether JPA, Hibernate and spring-orm are on the class path. */
  public static boolean present() {
    return PRESENT;
  }

  /**
   * The EntityManagerFactory that joins transactions on {@code dataSource}'s connections, or null.
   */
  public static @Nullable EntityManagerFactory find(
      ListableBeanFactory beans, DataSource dataSource) {
    EntityManagerFactory factory = beans.getBeanProvider(EntityManagerFactory.class).getIfUnique();
    if (!(factory instanceof EntityManagerFactoryInfo info) || info.getDataSource() != dataSource) {
      return null;
    }
    // by name: this module compiles against JPA and spring-orm, not Hibernate
    Class<?> hibernate =
        ClassUtils.resolveClassName(HIBERNATE, JoinedEntityManagerFactory.class.getClassLoader());
    return hibernate.isInstance(info.getNativeEntityManagerFactory()) ? factory : null;
  }

  /**
   * {@link #find} of the DataSource {@code dataSource} supplies, asked when the supplier is: for
   * the advisor, which asks for it once a transactional method runs, not while the context's
   * post-processors are being registered.
   */
  public static Supplier<@Nullable EntityManagerFactory> lazily(
      ListableBeanFactory beans, Supplier<@Nullable DataSource> dataSource) {
    return () -> {
      DataSource source = dataSource.get();
      return source == null ? null : find(beans, source);
    };
  }
}
