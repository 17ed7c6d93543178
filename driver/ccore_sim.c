// SPDX-License-Identifier: GPL-2.0
/*
 * The ccore_sim bus: simulated fabrics created and removed from sysfs, as
 * netdevsim's devices are.
 *
 *   echo "ID NUM_DEVICES [options]" > /sys/bus/ccore_sim/new_device
 *   echo ID > /sys/bus/ccore_sim/del_device
 *
 * Each bus device is one node of NUM_DEVICES accelerators sharing a fabric;
 * binding it to the bus's driver registers one accel device per
 * accelerator, unbinding unplugs them.  With options "nodes=M,here=N" it
 * is node N of a fabric of M nodes whose others are on other hosts (the
 * NIC, ccore_nic.c): its accel devices are N * NUM_DEVICES onwards.
 */
#include <linux/device.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include "ccore_drv.h"
#include "ccore_sim.h"

#define CCORE_SIM_MAX_DEVICES 64
#define CCORE_SIM_OPTIONS_MAX 256

struct ccore_sim_dev {
	struct device dev;
	struct list_head link;
	u32 id;
	u32 num_devices;
	char options[CCORE_SIM_OPTIONS_MAX];
	struct ccore_sim *sim;		/* while bound */
	struct device **accels;		/* one parent per accel device */
};

static inline struct ccore_sim_dev *to_sim_dev(struct device *dev)
{
	return container_of(dev, struct ccore_sim_dev, dev);
}

static LIST_HEAD(sim_devs);
static DEFINE_MUTEX(sim_devs_lock);	/* the list, and new/del against exit */
static bool sim_bus_up;

static void sim_dev_release(struct device *dev)
{
	kfree(to_sim_dev(dev));
}

static const struct bus_type ccore_sim_bus;

static ssize_t num_devices_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", to_sim_dev(dev)->num_devices);
}
static DEVICE_ATTR_RO(num_devices);

static ssize_t options_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", to_sim_dev(dev)->options);
}
static DEVICE_ATTR_RO(options);

static struct attribute *sim_dev_attrs[] = {
	&dev_attr_num_devices.attr,
	&dev_attr_options.attr,
	NULL,
};
ATTRIBUTE_GROUPS(sim_dev);

static const struct device_type sim_dev_type = {
	.groups = sim_dev_groups,
	.release = sim_dev_release,
};

static struct ccore_sim_dev *sim_dev_find(u32 id)
{
	struct ccore_sim_dev *sd;

	list_for_each_entry(sd, &sim_devs, link)
		if (sd->id == id)
			return sd;
	return NULL;
}

/* "ID NUM_DEVICES [options]": options are the model's key=value list. */
static int parse_new_device(const char *buf, size_t count, struct ccore_sim_dev *sd)
{
	char opts[CCORE_SIM_OPTIONS_MAX] = "";
	int n;

	if (count >= CCORE_SIM_OPTIONS_MAX) {
		pr_err("ccore_sim: new_device: line longer than %d bytes\n",
		       CCORE_SIM_OPTIONS_MAX - 1);
		return -EINVAL;
	}
	n = sscanf(buf, "%u %u %255s", &sd->id, &sd->num_devices, opts);
	if (n < 2) {
		pr_err("ccore_sim: new_device: expected \"ID NUM_DEVICES [key=value,...]\"\n");
		return -EINVAL;
	}
	if (sd->id > INT_MAX) {
		pr_err("ccore_sim: new_device: ID %u too large (0..%d)\n", sd->id, INT_MAX);
		return -EINVAL;
	}
	if (!sd->num_devices || sd->num_devices > CCORE_SIM_MAX_DEVICES) {
		pr_err("ccore_sim: new_device: NUM_DEVICES %u out of range (1..%d)\n",
		       sd->num_devices, CCORE_SIM_MAX_DEVICES);
		return -EINVAL;
	}
	strscpy(sd->options, opts, sizeof(sd->options));
	return 0;
}

static ssize_t new_device_store(const struct bus_type *bus, const char *buf, size_t count)
{
	struct ccore_sim_dev *sd;
	int rc;

	sd = kzalloc(sizeof(*sd), GFP_KERNEL);
	if (!sd)
		return -ENOMEM;
	rc = parse_new_device(buf, count, sd);
	if (rc) {
		kfree(sd);
		return rc;
	}
	mutex_lock(&sim_devs_lock);
	if (!sim_bus_up || sim_dev_find(sd->id)) {
		rc = sim_bus_up ? -EEXIST : -EBUSY;
		if (rc == -EEXIST)
			pr_err("ccore_sim: new_device: ID %u already exists\n", sd->id);
		kfree(sd);
		goto out;
	}
	sd->dev.bus = &ccore_sim_bus;
	sd->dev.type = &sim_dev_type;
	sd->dev.id = sd->id;
	dev_set_name(&sd->dev, "ccore_sim%u", sd->id);
	rc = device_register(&sd->dev);
	if (rc) {
		put_device(&sd->dev);
		goto out;
	}
	/* probe failures leave the device unbound: report and remove it */
	if (!sd->sim) {
		device_unregister(&sd->dev);
		rc = -EINVAL;
		goto out;
	}
	list_add_tail(&sd->link, &sim_devs);
out:
	mutex_unlock(&sim_devs_lock);
	return rc ? rc : count;
}
static BUS_ATTR_WO(new_device);

static ssize_t del_device_store(const struct bus_type *bus, const char *buf, size_t count)
{
	struct ccore_sim_dev *sd;
	u32 id;
	int rc;

	rc = kstrtou32(buf, 0, &id);
	if (rc) {
		pr_err("ccore_sim: del_device: expected an ID\n");
		return rc;
	}
	mutex_lock(&sim_devs_lock);
	sd = sim_bus_up ? sim_dev_find(id) : NULL;
	if (sd) {
		list_del(&sd->link);
		device_unregister(&sd->dev);
	} else {
		pr_err("ccore_sim: del_device: no device with ID %u\n", id);
	}
	mutex_unlock(&sim_devs_lock);
	return sd ? count : -ENOENT;
}
static BUS_ATTR_WO(del_device);

static struct attribute *ccore_sim_bus_attrs[] = {
	&bus_attr_new_device.attr,
	&bus_attr_del_device.attr,
	NULL,
};
ATTRIBUTE_GROUPS(ccore_sim_bus);

static void accel_parent_release(struct device *dev)
{
	kfree(dev);
}

/*
 * Each accelerator gets its own parent device, ccore_sim<ID>.<N>: the DRM
 * core names a device's debugfs directory after its parent, and the drm
 * device's managed memory goes when the parent is deleted.
 */
static struct device *accel_parent_add(struct ccore_sim_dev *sd, u32 index)
{
	struct device *dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	int rc;

	if (!dev)
		return ERR_PTR(-ENOMEM);
	device_initialize(dev);
	dev->parent = &sd->dev;
	dev->release = accel_parent_release;
	rc = dev_set_name(dev, "ccore_sim%u.%u", sd->id, index);
	if (!rc)
		rc = device_add(dev);
	if (rc) {
		put_device(dev);
		return ERR_PTR(rc);
	}
	return dev;
}

/*
 * Unplug every accel device, then delete its parent (and with it the drm
 * device's reference, dropped when its last file closes).
 */
static void sim_unplug(struct ccore_sim_dev *sd, struct ccore_sim *sim)
{
	u32 i;

	for (i = 0; i < sd->num_devices; i++) {
		if (sim->hw.devices[i])
			ccore_device_remove(sim->hw.devices[i]);
		if (sd->accels[i])
			device_unregister(sd->accels[i]);
		sd->accels[i] = NULL;
	}
	kfree(sd->accels);
	sd->accels = NULL;
}

static int ccore_sim_probe(struct device *dev)
{
	struct ccore_sim_dev *sd = to_sim_dev(dev);
	struct ccore_sim *sim;
	u32 i;
	int rc = 0;

	sim = ccore_sim_create(sd->id, sd->num_devices, sd->options, dev);
	if (IS_ERR(sim))
		return PTR_ERR(sim);
	sd->accels = kcalloc(sd->num_devices, sizeof(*sd->accels), GFP_KERNEL);
	if (!sd->accels)
		rc = -ENOMEM;
	for (i = 0; i < sd->num_devices && !rc; i++) {
		sd->accels[i] = accel_parent_add(sd, i);
		if (IS_ERR(sd->accels[i])) {
			rc = PTR_ERR(sd->accels[i]);
			sd->accels[i] = NULL;
			break;
		}
		rc = ccore_device_add(&sim->hw, sd->accels[i], ccore_sim_first_device(sim) + i,
				      &sim->hw.devices[i]);
	}
	if (rc) {
		if (sd->accels)
			sim_unplug(sd, sim);
		ccore_sim_put(sim);
		return rc;
	}
	sd->sim = sim;
	return 0;
}

static void ccore_sim_remove(struct device *dev)
{
	struct ccore_sim_dev *sd = to_sim_dev(dev);

	sim_unplug(sd, sd->sim);
	ccore_sim_put(sd->sim);
	sd->sim = NULL;
}

static const struct bus_type ccore_sim_bus = {
	.name = "ccore_sim",
	.dev_name = "ccore_sim",
	.bus_groups = ccore_sim_bus_groups,
	.probe = ccore_sim_probe,
	.remove = ccore_sim_remove,
};

static struct device_driver ccore_sim_driver = {
	.name = "ccore_sim",
	.bus = &ccore_sim_bus,
};

int ccore_sim_init(void)
{
	int rc;

	rc = bus_register(&ccore_sim_bus);
	if (rc)
		return rc;
	rc = driver_register(&ccore_sim_driver);
	if (rc) {
		bus_unregister(&ccore_sim_bus);
		return rc;
	}
	mutex_lock(&sim_devs_lock);
	sim_bus_up = true;
	mutex_unlock(&sim_devs_lock);
	return 0;
}

void ccore_sim_exit(void)
{
	struct ccore_sim_dev *sd, *tmp;

	mutex_lock(&sim_devs_lock);
	sim_bus_up = false;
	list_for_each_entry_safe(sd, tmp, &sim_devs, link) {
		list_del(&sd->link);
		device_unregister(&sd->dev);
	}
	mutex_unlock(&sim_devs_lock);
	driver_unregister(&ccore_sim_driver);
	bus_unregister(&ccore_sim_bus);
}
